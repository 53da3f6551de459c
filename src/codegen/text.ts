// How catalog text is written into generated TypeScript: string literals, property keys and doc
// comments. A catalog is data from a server (a node pack author's names and descriptions): nothing
// in it may end a comment, end a string or read as code (docs/workflows.md#generating-node-types).

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
// Characters a string literal must not hold as they are: the quote and backslash, line and
// paragraph separators, C0/C1 controls, the BOM, and lone surrogates (not encodable in UTF-8, so a
// written file would change them).
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const UNSAFE_IN_STRING = /['\\\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
// In a comment: controls (but tab), the BOM and lone surrogates become U+FFFD; line breaks split lines.
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const UNSAFE_IN_COMMENT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const LINE_BREAK = /\r\n|[\n\r\u2028\u2029]/;

/**
 * `text` as a single-quoted TypeScript string literal.
 *
 * @example
 * ```ts
 * stringLiteral("it's"); // "'it\\'s'"
 * ```
 */
export function stringLiteral(text: string): string {
  return `'${text.replace(UNSAFE_IN_STRING, (c) => (c === "'" || c === '\\' ? `\\${c}` : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`))}'`;
}

/**
 * A property name as written in a type: bare when it is an identifier, quoted otherwise.
 *
 * @example
 * ```ts
 * propertyKey('seed'); // 'seed'
 * propertyKey('resize_type.width'); // "'resize_type.width'"
 * ```
 */
export function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : stringLiteral(name);
}

/**
 * A literal type of a JSON primitive (a combo option): a string, a finite number or a boolean.
 *
 * @example
 * ```ts
 * literalType('euler'); // "'euler'"
 * ```
 */
export function literalType(value: string | number | boolean): string {
  if (typeof value === 'string') return stringLiteral(value);
  if (typeof value === 'number') return Object.is(value, -0) ? '0' : String(value);
  return String(value);
}

/**
 * Catalog text made safe for a comment, one entry per line: every line break splits (a line
 * comment cannot be left), controls, the BOM and lone surrogates become U+FFFD, and the two
 * characters that end a block comment are written with a backslash between them.
 *
 * @example
 * ```ts
 * commentLines(['a\nb']); // ['a', 'b']
 * ```
 */
export function commentLines(lines: readonly string[]): string[] {
  const body = lines
    .flatMap((line) => line.split(LINE_BREAK))
    .map((line) => line.replace(UNSAFE_IN_COMMENT, '\ufffd').replaceAll('*/', '*\\/').trimEnd());
  while (body.length > 0 && body.at(-1) === '') body.pop();
  return body;
}

/**
 * A doc comment of `lines` (see {@link commentLines}), indented by `indent`; empty when there is
 * nothing to say.
 *
 * @example
 * ```ts
 * docComment(['Load Checkpoint', '@deprecated'], '  ');
 * ```
 */
export function docComment(lines: readonly string[], indent: string): string {
  const body = commentLines(lines);
  if (body.length === 0) return '';
  if (body.length === 1) return `${indent}/** ${body[0]} */\n`;
  return `${indent}/**\n${body.map((line) => `${indent} *${line === '' ? '' : ` ${line}`}`).join('\n')}\n${indent} */\n`;
}

/**
 * A JSON value as a short text for a comment (`@default`), cut at `max` characters.
 *
 * @example
 * ```ts
 * shortJson({ x: 0 }); // '{"x":0}'
 * ```
 */
export function shortJson(value: unknown, max = 120): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * Code-unit order, the same on every machine (`localeCompare` depends on the locale).
 *
 * @example
 * ```ts
 * ['b', 'a'].sort(byCodeUnit); // ['a', 'b']
 * ```
 */
export function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
