import { callSafely, GraphcloudError } from '../core/index.js';
import { answerHeaders, holdsSecret, isTextual, refuse, scrubText } from './answers.js';
import { concatBytes, readBytes } from './body.js';
import { MAX_ESCAPE_LENGTH, safeCut, unescapeJson, unescapeMarkup } from './scrub-forms.js';

// A binary error body is read whole to be checked (error bodies are small); a larger one is refused.
const MAX_ERROR_BYTES = 1024 * 1024;
const MIN_SECRET = 4;
// Bytes of a binary success body read before answering (a small file is checked whole).
const PEEK_BYTES = 64 * 1024;

/**
 * A credential's byte spellings: UTF-8 and UTF-16 in both byte orders (what a page decodes from
 * bytes with `TextDecoder`), for finding it in binary bodies and frames.
 *
 * @example
 * ```ts
 * if (holdsSecret(frame, secretPatterns(secrets))) return;
 * ```
 */
export function secretPatterns(secrets: readonly string[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const secret of new Set(secrets)) {
    if (secret.length < MIN_SECRET) continue;
    const le = new Uint8Array(secret.length * 2);
    const be = new Uint8Array(secret.length * 2);
    for (let i = 0; i < secret.length; i++) {
      const code = secret.charCodeAt(i);
      le[2 * i] = be[2 * i + 1] = code & 255;
      le[2 * i + 1] = be[2 * i] = code >> 8;
    }
    out.push(new TextEncoder().encode(secret), le, be);
  }
  return out;
}

/**
 * A text with every credential replaced, after the escapes a browser decodes by itself (JSON
 * `\u`, character references) are written as plain characters.
 *
 * @example
 * ```ts
 * scrubDecodable('{"k":"\\u0073k-1"}', ['sk-1']); // '{"k":"[REDACTED]"}'
 * ```
 */
export function scrubDecodable(text: string, secrets: readonly string[]): string {
  return scrubText(unescapeMarkup(unescapeJson(text)), secrets);
}

/**
 * An upstream answer as the browser gets it, with no spelling of a credential left in its body:
 *
 * - a textual body (text/*, JSON, XML and `+xml` such as SVG, JavaScript, no type) is decoded by
 *   its byte-order mark or charset, its escapes written plain, scrubbed, and re-encoded as UTF-8
 *   (`charset=utf-8`); an unknown charset cannot be scrubbed: `502 unscrubbable_answer`;
 * - a binary error body is read whole (1 MiB at most) and withheld (`502 unscrubbable_answer`)
 *   when it holds a credential in UTF-8, UTF-16 or escaped;
 * - a binary success body (an image) passes byte for byte, scanned: one holding a credential in
 *   UTF-8 or UTF-16 is withheld (`502 unscrubbable_answer`) when seen in its first 64 KiB, else
 *   cut off before those bytes leave (the download fails); `onError` is told either way.
 *
 * @example
 * ```ts
 * return scrubbedAnswer(response, ctx.upstream.secrets, ctx.config.onError);
 * ```
 */
export async function scrubbedAnswer(response: Response, secrets: readonly string[], onError?: (error: Error) => unknown): Promise<Response> {
  const active = secrets.filter((secret) => secret.length >= MIN_SECRET);
  const type = response.headers.get('content-type');
  const status = response.status;
  if (!response.body || active.length === 0) return new Response(response.body, { status, headers: answerHeaders(response.headers, secrets, { keepLength: true }) });
  if (isTextual(type)) {
    const scrubbed = scrubTextStream(response.body, type, active);
    if (!scrubbed) {
      await response.body.cancel().catch(() => undefined);
      return refuse(502, 'unscrubbable_answer', `The upstream answered in a charset the relay cannot read (${type}), so it could not be scrubbed of credentials; it was withheld`);
    }
    const headers = answerHeaders(response.headers, secrets, { keepLength: false });
    if (scrubbed.type !== null) headers.set('content-type', scrubbed.type);
    return new Response(scrubbed.body, { status, headers });
  }
  const patterns = secretPatterns(active);
  if (!response.ok) {
    const bytes = await readBytes(response.body, MAX_ERROR_BYTES);
    const decoded = bytes && unescapeMarkup(unescapeJson(new TextDecoder('latin1').decode(bytes)));
    if (bytes === undefined || decoded === undefined || holdsSecret(bytes, patterns) || active.some((secret) => decoded.includes(secret))) {
      return refuse(502, 'unscrubbable_answer', `The upstream's error answer (status ${status}, ${type}) held a credential or was too large to check; it was withheld`);
    }
    return new Response(bytes, { status, headers: answerHeaders(response.headers, secrets, { keepLength: false }) });
  }
  // The first bytes are read before answering, so a small file holding a credential gets a clear
  // refusal; past them, the stream can only be cut off.
  const reader = response.body.getReader();
  const head: Uint8Array[] = [];
  let headBytes = 0;
  let done = false;
  while (!done && headBytes < PEEK_BYTES) {
    const read = await reader.read();
    if (read.done) done = true;
    else {
      head.push(read.value);
      headBytes += read.value.byteLength;
    }
  }
  const joined = concatBytes(head);
  if (holdsSecret(joined, patterns)) {
    await reader.cancel().catch(() => undefined);
    callSafely(onError, new GraphcloudError(`An upstream ${type} answer held the relay's credential: it was withheld`));
    return refuse(502, 'unscrubbable_answer', `The upstream's answer (${type}) held a credential, which the relay cannot scrub from bytes; it was withheld`);
  }
  const rest = new ReadableStream<Uint8Array>({
    start(controller) {
      if (joined.byteLength > 0) controller.enqueue(joined);
      if (done) controller.close();
    },
    async pull(controller) {
      const read = await reader.read();
      if (read.done) controller.close();
      else controller.enqueue(read.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  const onHit = () => callSafely(onError, new GraphcloudError(`An upstream ${type} answer held the relay's credential: the relay cut it off`));
  return new Response(scanStream(rest, patterns, onHit), { status, headers: answerHeaders(response.headers, secrets, { keepLength: true }) });
}

function scrubTextStream(body: ReadableStream<Uint8Array>, type: string | null, secrets: readonly string[]): { body: ReadableStream<Uint8Array>; type: string | null } | undefined {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(type ?? '')?.[1] ?? 'utf-8';
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset);
  } catch {
    return undefined;
  }
  const keep = Math.max(...secrets.map((secret) => secret.length)) - 1 + MAX_ESCAPE_LENGTH;
  const encoder = new TextEncoder();
  let carry = '';
  let first = true;
  const scrub = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      if (first) {
        first = false;
        // A byte-order mark decides over the charset, as in a browser.
        const bom = chunk[0] === 0xff && chunk[1] === 0xfe ? 'utf-16le' : chunk[0] === 0xfe && chunk[1] === 0xff ? 'utf-16be' : chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf ? 'utf-8' : undefined;
        if (bom) decoder = new TextDecoder(bom);
      }
      const text = scrubDecodable(carry + decoder.decode(chunk, { stream: true }), secrets);
      const cut = safeCut(text, text.length - keep);
      carry = text.slice(cut);
      if (cut > 0) controller.enqueue(encoder.encode(text.slice(0, cut)));
    },
    flush(controller) {
      const rest = scrubDecodable(carry + decoder.decode(), secrets);
      if (rest) controller.enqueue(encoder.encode(rest));
    },
  });
  const utf8 = type === null ? null : `${type.replace(/;\s*charset\s*=\s*"?[^";\s]*"?/gi, '').trim()}; charset=utf-8`;
  return { body: body.pipeThrough(scrub), type: utf8 };
}

/** The bytes unchanged, the last bytes of each chunk held back until the next shows no credential. */
function scanStream(body: ReadableStream<Uint8Array>, patterns: readonly Uint8Array[], onHit: () => void): ReadableStream<Uint8Array> {
  const keep = Math.max(...patterns.map((pattern) => pattern.length)) - 1;
  let carry = new Uint8Array(0);
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        const joined = new Uint8Array(carry.length + chunk.length);
        joined.set(carry);
        joined.set(chunk, carry.length);
        if (holdsSecret(joined, patterns)) {
          onHit();
          controller.error(new GraphcloudError('The answer held a credential'));
          return;
        }
        const cut = Math.max(0, joined.length - keep);
        if (cut > 0) controller.enqueue(joined.slice(0, cut));
        carry = joined.slice(cut);
      },
      flush(controller) {
        if (carry.length > 0) controller.enqueue(carry);
      },
    }),
  );
}
