// The TypeScript spelling of what ejectWorkflow() writes: literals that read back as the very JSON
// value they came from, and variable names made of node titles.

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

// Reserved words, strict-mode and module ones included, and the names the ejected module uses itself.
const TAKEN = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for function if import in ' +
    'instanceof new null return super switch this throw true try typeof var void while with as implements interface let package private ' +
    'protected public static yield await async of eval arguments undefined NaN Infinity globalThis ' +
    'wf untyped build workflow Nodes WorkflowBuilder Object Array String Number Boolean JSON Math Date Symbol Promise Error'
  ).split(' '),
);

/** Hands out readable, unique camelCase names: `Load Checkpoint` → `loadCheckpoint`, then `loadCheckpoint2`. */
export class Names {
  readonly #used = new Set<string>();

  /** A fresh name made of the first of `sources` that has a letter or digit in it. */
  take(...sources: string[]): string {
    const base = sources.map(camelCase).find((name) => name !== '') ?? 'node';
    const start = /^[A-Za-z_$]/.test(base) ? base : `node${base}`;
    const safe = TAKEN.has(start) ? `${start}Node` : start;
    let name = safe;
    for (let n = 2; this.#used.has(name); n++) name = `${safe}${n}`;
    this.#used.add(name);
    return name;
  }
}

/** `CLIP Text Encode (Prompt)` → `clipTextEncodePrompt`; `KSamplerAdvanced` → `kSamplerAdvanced`. */
function camelCase(text: string): string {
  const words = text
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/([a-z\d])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== '')
    .slice(0, 6);
  return words.map((word, at) => (at === 0 ? word.toLowerCase() : word[0]!.toUpperCase() + word.slice(1).toLowerCase())).join('');
}

/** An object key: bare when it is an identifier, quoted otherwise (`__proto__` computed, so it stays a key). */
export function key(name: string): string {
  if (name === '__proto__') return `['__proto__']`;
  return IDENTIFIER.test(name) ? name : quote(name);
}

/** A single-quoted string literal of exactly `text` (lone surrogates and line separators escaped). */
export function quote(text: string): string {
  let out = "'";
  for (let at = 0; at < text.length; at++) {
    const char = text[at]!;
    const code = text.charCodeAt(at);
    const pair = code >= 0xd800 && code <= 0xdbff && at + 1 < text.length && text.charCodeAt(at + 1) >= 0xdc00 && text.charCodeAt(at + 1) <= 0xdfff;
    if (pair) {
      out += char + text[++at]!;
    } else if (char === '\\' || char === "'") out += `\\${char}`;
    else if (char === '\n') out += '\\n';
    else if (char === '\r') out += '\\r';
    else if (char === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f || code === 0x2028 || code === 0x2029 || (code >= 0xd800 && code <= 0xdfff)) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += char;
  }
  return `${out}'`;
}

/** A literal of a JSON value (numbers as JavaScript reads them back: -0, NaN and Infinity too). */
export function literal(value: unknown): string {
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  if (value === null || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined);
    return entries.length === 0 ? '{}' : `{ ${entries.map(([name, item]) => `${key(name)}: ${literal(item)}`).join(', ')} }`;
  }
  return 'null';
}

/** `{ a, b }` on one line when it fits in `width` characters after `indent`, else one entry per line. */
export function objectLiteral(entries: [string, string][], indent: string, width = 110): string {
  if (entries.length === 0) return '{}';
  const line = `{ ${entries.map(([name, value]) => `${key(name)}: ${value}`).join(', ')} }`;
  if (indent.length + line.length <= width && !line.includes('\n')) return line;
  return `{\n${entries.map(([name, value]) => `${indent}  ${key(name)}: ${value},`).join('\n')}\n${indent}}`;
}
