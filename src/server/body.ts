import { refuse } from './answers.js';

/**
 * The bounds of a request body: its size, and the time to read it whole.
 *
 * @example
 * ```ts
 * const limits: BodyLimits = { maxBytes: config.maxBodyBytes, timeoutMs: config.bodyTimeoutMs };
 * ```
 */
export interface BodyLimits {
  maxBytes: number;
  timeoutMs: number;
}

/**
 * Reads a request body whole, refusing it (nothing sent upstream) past `maxBytes` (`413`: at
 * once when `content-length` says so, or as soon as the bytes read pass the bound) or when it
 * takes longer than `timeoutMs` (`408`: a body sent a byte at a time must not hold the relay).
 * Returns the bytes, or the refusal to answer with.
 *
 * @example
 * ```ts
 * const body = await readBounded(request, { maxBytes: 20 * 1024 * 1024, timeoutMs: 30_000 });
 * if (body instanceof Response) return body;
 * ```
 */
export async function readBounded(request: Request, limits: BodyLimits): Promise<Uint8Array<ArrayBuffer> | Response> {
  const { maxBytes, timeoutMs } = limits;
  const tooLarge = () => refuse(413, 'body_too_large', `The request body is over the relay's bound of ${maxBytes} bytes (the maxBodyBytes option)`);
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > maxBytes) {
    await request.body?.cancel().catch(() => undefined);
    return tooLarge();
  }
  if (!request.body) return new Uint8Array(0);
  const late = new AbortController();
  const timer = setTimeout(() => late.abort(), timeoutMs);
  try {
    const bytes = await readBytes(request.body, maxBytes, late.signal);
    if (late.signal.aborted) {
      return refuse(408, 'body_timeout', `The request body took longer than ${timeoutMs} ms to arrive (the relay's bodyTimeoutMs option)`, { connection: 'close' });
    }
    return bytes ?? tooLarge();
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Reads a stream whole, at most `maxBytes`: `undefined` (the stream cancelled) beyond. When
 * `signal` aborts, the stream is cancelled and what was read so far is returned: the caller
 * checks the signal.
 *
 * @example
 * ```ts
 * const bytes = await readBytes(response.body, 1024 * 1024);
 * ```
 */
export async function readBytes(body: ReadableStream<Uint8Array>, maxBytes: number, signal?: AbortSignal): Promise<Uint8Array<ArrayBuffer> | undefined> {
  const reader = body.getReader();
  const stop = () => void reader.cancel().catch(() => undefined);
  signal?.addEventListener('abort', stop, { once: true });
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || signal?.aborted) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => undefined);
        return undefined;
      }
      chunks.push(value);
    }
  } catch (error) {
    if (!signal?.aborted) throw error;
  } finally {
    signal?.removeEventListener('abort', stop);
  }
  return concatBytes(chunks);
}

/**
 * The chunks joined in one array.
 *
 * @example
 * ```ts
 * concatBytes([new Uint8Array([1]), new Uint8Array([2])]); // Uint8Array [1, 2]
 * ```
 */
export function concatBytes(chunks: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0));
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * Reads a JSON object body (bounded as `readBounded`): the object, or the refusal to answer with
 * (`415` without a JSON content type, which also keeps a cross-site form from posting one; `400`
 * when it does not parse to an object, or nests deeper than 128 levels).
 *
 * @example
 * ```ts
 * const body = await readJsonObject(request, { maxBytes, timeoutMs });
 * if (body instanceof Response) return body;
 * ```
 */
export async function readJsonObject(request: Request, limits: BodyLimits): Promise<Record<string, unknown> | Response> {
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    await request.body?.cancel().catch(() => undefined);
    return refuse(415, 'unsupported_media_type', 'The relay takes this route with Content-Type: application/json only');
  }
  const bytes = await readBounded(request, limits);
  if (bytes instanceof Response) return bytes;
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return refuse(400, 'bad_request', 'The request body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return refuse(400, 'bad_request', 'The request body must be a JSON object');
  // JSON.parse takes any depth, but sending it again (JSON.stringify) overflows the stack.
  if (deeperThan(value, MAX_JSON_DEPTH)) return refuse(400, 'body_too_deep', `The request body nests deeper than ${MAX_JSON_DEPTH} levels`);
  return value as Record<string, unknown>;
}

// A workflow nests about 5 levels (prompt, node, inputs, a value, a link); far more is an attack.
const MAX_JSON_DEPTH = 128;

/** True when a parsed JSON value nests deeper than `max` (counted without recursion). */
function deeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number];
    if (item === null || typeof item !== 'object') continue;
    if (depth > max) return true;
    for (const child of Object.values(item)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * Reads an upstream answer's text, at most `maxBytes` of it: `undefined` (the body cancelled)
 * beyond, so a hostile or broken upstream cannot make the relay buffer without bound.
 *
 * @example
 * ```ts
 * const text = await readAnswer(response, 4 * 1024 * 1024);
 * if (text === undefined) return refuse(502, 'upstream_refused', 'The answer was too large');
 * ```
 */
export async function readAnswer(response: Response, maxBytes: number): Promise<string | undefined> {
  if (!response.body) return '';
  if (Number(response.headers.get('content-length') ?? 0) > maxBytes) {
    await response.body.cancel().catch(() => undefined);
    return undefined;
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    text += decoder.decode(value, { stream: true });
  }
}
