import { errorCode } from './errors.js';

const REDACTED = '[REDACTED]';
/** Header names that carry credentials (lowercase). */
export const SECRET_HEADERS: ReadonlySet<string> = new Set(['x-api-key', 'authorization', 'proxy-authorization', 'cookie', 'set-cookie']);
const SECRET_PARAMS = /^(token|access_token|api_key|apikey|key|sig|signature|x-amz-signature|x-amz-credential|x-amz-security-token|x-goog-signature|x-goog-credential)$/i;

/** Returns a copy of the URL with credentials in the query and userinfo replaced by `[REDACTED]`. */
export function redactUrl(url: string | URL): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return String(url).replace(/([?&](?:token|api_key|apikey|key|access_token)=)[^&#]*/gi, `$1${REDACTED}`);
  }
  if (parsed.username || parsed.password) {
    parsed.username = 'REDACTED';
    parsed.password = '';
  }
  const names = [...parsed.searchParams.keys()].filter((name) => SECRET_PARAMS.test(name));
  for (const name of new Set(names)) parsed.searchParams.set(name, REDACTED);
  // URLSearchParams percent-encodes the brackets; keep the marker readable.
  return parsed.toString().replaceAll('%5BREDACTED%5D', REDACTED);
}

/** Returns a plain object of the headers with credential headers replaced by `[REDACTED]`. */
export function redactHeaders(headers: Headers | Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  const entries = headers instanceof Headers ? headers.entries() : Object.entries(headers);
  for (const [name, value] of entries) out[name] = SECRET_HEADERS.has(name.toLowerCase()) ? REDACTED : value;
  return out;
}

const MAX_DEPTH = 64;

/**
 * Replaces every occurrence of the given secrets in a string, or in the strings and keys of a
 * JSON-like value, at any depth: a subtree nested deeper than 64 levels is replaced by a marker
 * (a hostile body must neither hide a secret below the scrubber nor exhaust the stack). Secrets
 * shorter than `minLength` are left alone: they are placeholders, and replacing them everywhere
 * would mangle text that merely contains them.
 */
export function scrubSecrets<T>(value: T, secrets: readonly string[], minLength = 4): T {
  // Longest first: a secret that contains another is replaced whole, not left half shown.
  const active = [...new Set(secrets)].filter((s) => typeof s === 'string' && s.length >= minLength).sort((a, b) => b.length - a.length);
  if (active.length === 0) return value;
  // `includes` first: most texts hold no secret, and a split copies the whole text.
  const text = (input: string) => active.reduce((out, secret) => (out.includes(secret) ? out.split(secret).join(REDACTED) : out), input);
  const scrub = (input: unknown, depth: number): unknown => {
    if (typeof input === 'string') return text(input);
    if (input === null || typeof input !== 'object') return input;
    if (depth >= MAX_DEPTH) return `[TRUNCATED: nested deeper than ${MAX_DEPTH} levels]`;
    if (Array.isArray(input)) return input.map((item) => scrub(item, depth + 1));
    return Object.fromEntries(Object.entries(input).map(([k, v]) => [text(k), scrub(v, depth + 1)]));
  };
  return scrub(value, 0) as T;
}

/**
 * A copy of a JSON-like value with the values of the named fields replaced, at any depth: for
 * answers that carry a secret the SDK could not know in advance (a token created just now).
 */
export function redactFields<T>(value: T, fields: readonly string[]): T {
  if (fields.length === 0) return value;
  const names = new Set(fields);
  const walk = (input: unknown, depth: number): unknown => {
    if (input === null || typeof input !== 'object' || depth >= MAX_DEPTH) return input;
    if (Array.isArray(input)) return input.map((item) => walk(item, depth + 1));
    return Object.fromEntries(Object.entries(input).map(([k, v]) => [k, names.has(k) ? REDACTED : walk(v, depth + 1)]));
  };
  return walk(value, 0) as T;
}

/** How many secrets a client remembers: a rotating credential or per-call keys must not grow it without bound. */
const REMEMBERED = 64;

/**
 * Every secret one client was given (its credential, each value a credential function returned,
 * partner keys and tokens its calls carried), the most recent 64 kept, so that whatever the
 * client reports (HTTP answers and errors, socket frames, job records) is scrubbed of all of them,
 * not only of the credential of the request at hand.
 *
 * @example
 * ```ts
 * const secrets = new SecretSet();
 * secrets.add(apiKey, partnerKey);
 * secrets.scrub(`failed: ${JSON.stringify(extraData)}`); // 'failed: {"api_key_platform_org":"[REDACTED]"}'
 * ```
 */
export class SecretSet {
  readonly #known = new Set<string>();
  /** The secrets `scrub()` replaces by default, longest first; rebuilt after an `add()`. */
  #active: readonly string[] | undefined;

  /** Remembers each string of 4 characters or more (shorter ones are placeholders; see `scrubSecrets`). */
  add(...secrets: readonly unknown[]): void {
    for (const secret of secrets) {
      if (typeof secret !== 'string' || secret.length < 4) continue;
      // Re-adding moves a secret to the newest end, so one still in use is not the next dropped.
      this.#known.delete(secret);
      this.#known.add(secret);
    }
    while (this.#known.size > REMEMBERED) this.#known.delete(this.#known.values().next().value as string);
    this.#active = undefined;
  }

  /** The secrets remembered, oldest first. */
  get list(): string[] {
    return [...this.#known];
  }

  /**
   * `scrubSecrets(value, this.list, minLength)`. A string with the default `minLength` (every
   * socket frame goes through here) takes a path that builds nothing per call.
   */
  scrub<T>(value: T, minLength = 4): T {
    if (typeof value !== 'string' || minLength !== 4) return scrubSecrets(value, this.list, minLength);
    // Longest first, as scrubSecrets orders them (Array#sort is stable: ties stay oldest first).
    this.#active ??= this.list.sort((a, b) => b.length - a.length);
    let out: string = value;
    for (const secret of this.#active) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    return out as T;
  }
}

/**
 * The secret parts of a credential header's value: the whole value and the token after a scheme.
 *
 * @example
 * ```ts
 * headerSecrets('Bearer abc123'); // ['Bearer abc123', 'abc123']
 * ```
 */
export function headerSecrets(value: string): string[] {
  const token = value.replace(/^(bearer|basic|token)\s+/i, '');
  return token === value ? [value] : [value, token];
}

/**
 * A copy of the runtime's error fit to be a `ConnectionError`'s cause: the messages of its whole
 * cause chain (the innermost, "connect ECONNREFUSED ..." or "bad port", is usually the useful one,
 * and Node's fetch puts it two causes down), every secret scrubbed, its code kept (it tells a
 * refused connection, certainly not sent, from one that broke later).
 *
 * @example
 * ```ts
 * scrubCause(new TypeError('fetch failed', { cause }), ['sk-partner-key']);
 * ```
 */
export function scrubCause(cause: unknown, secrets: readonly string[]): Error {
  let message = '';
  let link = cause;
  for (let depth = 0; depth < 5 && link !== undefined && link !== null; depth++) {
    const text = link instanceof Error ? link.message : String(link);
    if (!message.includes(text)) message += message ? `: ${text}` : text;
    link = link instanceof Error ? link.cause : undefined;
  }
  const code = errorCode(cause);
  return Object.assign(new Error(scrubSecrets(message, secrets)), code ? { code } : {});
}
