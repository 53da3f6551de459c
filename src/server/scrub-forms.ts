/**
 * The spellings of a credential a browser decodes on its own, beside the plain one: percent
 * escapes (a URL, a `filename*` header), JSON and JavaScript `\uXXXX` escapes, XML and HTML
 * character references (`&#115;`, `&#x73;`). The relay writes these forms back as plain text
 * before it scrubs, or refuses what still holds a credential.
 */

const REFERENCE_LENGTH = 12;

/**
 * The longest escape this module rewrites (`&#x0000073;` style references are bounded), so a
 * streaming caller keeps at least this many characters between chunks.
 *
 * @example
 * ```ts
 * const keep = Math.max(longestSecret - 1, MAX_ESCAPE_LENGTH);
 * ```
 */
export const MAX_ESCAPE_LENGTH = REFERENCE_LENGTH;

/**
 * Percent escapes decoded, as bytes read as Latin-1 (a credential is ASCII), up to three times
 * (a value escaped twice). Never throws, unlike `decodeURIComponent`.
 *
 * @example
 * ```ts
 * percentDecoded('%73k-1'); // 'sk-1'
 * ```
 */
export function percentDecoded(text: string): string {
  let out = text;
  for (let round = 0; round < 3 && out.includes('%'); round++) {
    const next = out.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    if (next === out) break;
    out = next;
  }
  return out;
}

/**
 * True when a URL or header value holds a credential, plain or percent-escaped.
 *
 * @example
 * ```ts
 * if (holdsInUrl(location, secrets)) return refuse(502, 'upstream_refused', '…');
 * ```
 */
export function holdsInUrl(value: string, secrets: readonly string[]): boolean {
  const decoded = percentDecoded(value);
  return secrets.some((secret) => secret.length >= 4 && (value.includes(secret) || decoded.includes(secret)));
}

// A character a credential may hold, rewritten from an escape. Never one that starts or ends an
// escape or markup (`\`, `&`, `;`, `#`, quotes, `<`, `>`): rewriting cannot create a new escape.
const PLAIN = /^[A-Za-z0-9\-_.~+/=:@!$*,?^|`{}[\]()% ]$/;

function plain(code: number, escape: string): string {
  const char = String.fromCharCode(code);
  return PLAIN.test(char) ? char : escape;
}

/**
 * JSON (and JavaScript) `\uXXXX` escapes of plain ASCII written as the character; `\\` pairs are
 * kept whole, so an escaped backslash followed by `u0041` is left alone. Meaning is unchanged.
 *
 * @example
 * ```ts
 * unescapeJson('"\\u0073k-1"'); // '"sk-1"'
 * ```
 */
export function unescapeJson(text: string): string {
  if (!text.includes('\\')) return text;
  return text.replace(/\\\\|\\u([0-9a-fA-F]{4})|\\\//g, (escape, hex: string | undefined) => {
    if (escape === '\\/') return '/';
    return hex === undefined ? escape : plain(parseInt(hex, 16), escape);
  });
}

/**
 * XML and HTML numeric character references of plain ASCII written as the character.
 *
 * @example
 * ```ts
 * unescapeMarkup('&#115;k-1'); // 'sk-1'
 * ```
 */
export function unescapeMarkup(text: string): string {
  if (!text.includes('&#')) return text;
  return text.replace(/&#(?:[xX]([0-9a-fA-F]{1,8})|([0-9]{1,9}));/g, (escape, hex: string | undefined, decimal: string | undefined) => {
    const code = hex === undefined ? Number(decimal) : parseInt(hex, 16);
    return code < 128 ? plain(code, escape) : escape;
  });
}

/**
 * Where a streaming caller may cut a text it has rewritten so that no escape is split: not after
 * a backslash (the run of backslashes stays whole, its pairs read from the start) and not inside
 * a `&#…` or `\u…` that may still be completed.
 *
 * @example
 * ```ts
 * const cut = safeCut(text, text.length - keep);
 * ```
 */
export function safeCut(text: string, at: number): number {
  let cut = Math.max(0, at);
  while (cut > 0 && text[cut - 1] === '\\') cut--;
  return cut;
}
