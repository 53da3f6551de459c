import { SetsFileError } from './sets-error.js';

/**
 * One member of a JSON Lines record: its key, its value, and where the key starts.
 *
 * @example
 * ```ts
 * const entry: JsonlEntry = { key: 'KSampler.seed', value: 42, line: 1, column: 2 };
 * ```
 */
export interface JsonlEntry {
  key: string;
  value: unknown;
  line: number;
  column: number;
}

/**
 * A JSON Lines file of objects, read strictly: one JSON object per line (RFC 8259 JSON, nothing
 * JavaScript adds), blank lines skipped, a CRLF line end and a byte-order mark accepted. Each
 * record is its members in order; nested objects are prototype-free. A key given twice in one
 * object, a value that is not an object, or anything `JSON.parse` refuses is a `SetsFileError`
 * naming the line and the column where the mistake is.
 *
 * `JSON.parse` is not used: it keeps the last of two equal keys silently, and its messages give
 * no position for some mistakes; this reader accepts exactly what it accepts otherwise (a
 * property test compares them).
 *
 * @throws {SetsFileError} a line that is not one JSON object.
 * @example
 * ```ts
 * parseJsonl('{"KSampler.seed": 1}\n{"KSampler.seed": 2}\n', 'sweep.jsonl')[1]!.entries[0]!.value; // 2
 * ```
 */
export function parseJsonl(text: string, file: string): { line: number; entries: JsonlEntry[] }[] {
  const lines = (text.startsWith('\uFEFF') ? text.slice(1) : text).split('\n');
  const records: { line: number; entries: JsonlEntry[] }[] = [];
  lines.forEach((raw, index) => {
    const source = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (source.trim() === '') return;
    records.push({ line: index + 1, entries: new LineReader(source, file, index + 1).record() });
  });
  return records;
}

const MAX_DEPTH = 64;
const WS = new Set([' ', '\t', '\r', '\n']);
const ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** A recursive-descent reader of one line. */
class LineReader {
  readonly #text: string;
  readonly #file: string;
  readonly #line: number;
  #at = 0;

  constructor(text: string, file: string, line: number) {
    this.#text = text;
    this.#file = file;
    this.#line = line;
  }

  record(): JsonlEntry[] {
    this.#space();
    if (this.#text[this.#at] !== '{') this.#fail(this.#at, `expected a JSON object ({"<node>.<input>": value, ...}), found ${this.#describe(this.#at)}.`);
    const entries: JsonlEntry[] = [];
    this.#members(0, (key, value, column) => entries.push({ key, value, line: this.#line, column }));
    this.#space();
    if (this.#at < this.#text.length) this.#fail(this.#at, `text after the object (one object per line): ${this.#describe(this.#at)}.`);
    return entries;
  }

  /** Reads `{ ... }` at the cursor, calling `add` for each member; refuses a key given twice. */
  #members(depth: number, add: (key: string, value: unknown, column: number) => void): void {
    this.#at += 1;
    const seen = new Map<string, number>();
    this.#space();
    if (this.#text[this.#at] === '}') {
      this.#at += 1;
      return;
    }
    for (;;) {
      this.#space();
      const column = this.#at + 1;
      if (this.#text[this.#at] !== '"') this.#fail(this.#at, `expected a key in double quotes, found ${this.#describe(this.#at)}.`);
      const key = this.#string();
      const first = seen.get(key);
      if (first !== undefined) this.#fail(column - 1, `the key "${key}" is given twice in one object (also at column ${first}).`);
      seen.set(key, column);
      this.#space();
      if (this.#text[this.#at] !== ':') this.#fail(this.#at, `expected ':' after the key, found ${this.#describe(this.#at)}.`);
      this.#at += 1;
      add(key, this.#value(depth + 1), column);
      this.#space();
      const next = this.#text[this.#at];
      this.#at += 1;
      if (next === '}') return;
      if (next !== ',') this.#fail(this.#at - 1, `expected ',' or '}' after a value, found ${this.#describe(this.#at - 1)}.`);
    }
  }

  #value(depth: number): unknown {
    this.#space();
    if (depth > MAX_DEPTH) this.#fail(this.#at, `values nest deeper than ${MAX_DEPTH} levels.`);
    const ch = this.#text[this.#at];
    if (ch === '{') {
      const object = Object.create(null) as Record<string, unknown>;
      this.#members(depth, (key, value) => (object[key] = value));
      return object;
    }
    if (ch === '[') {
      this.#at += 1;
      const list: unknown[] = [];
      this.#space();
      if (this.#text[this.#at] === ']') {
        this.#at += 1;
        return list;
      }
      for (;;) {
        list.push(this.#value(depth + 1));
        this.#space();
        const next = this.#text[this.#at];
        this.#at += 1;
        if (next === ']') return list;
        if (next !== ',') this.#fail(this.#at - 1, `expected ',' or ']' in a list, found ${this.#describe(this.#at - 1)}.`);
      }
    }
    if (ch === '"') return this.#string();
    for (const [word, value] of [['true', true], ['false', false], ['null', null]] as const) {
      if (this.#text.startsWith(word, this.#at)) {
        this.#at += word.length;
        return value;
      }
    }
    NUMBER.lastIndex = this.#at;
    const number = NUMBER.exec(this.#text);
    if (number) {
      this.#at += number[0].length;
      return Number(number[0]);
    }
    return this.#fail(this.#at, `expected a JSON value, found ${this.#describe(this.#at)}.`);
  }

  /** Reads a string at the cursor (on its opening quote). */
  #string(): string {
    const start = this.#at;
    this.#at += 1;
    let value = '';
    for (;;) {
      const ch = this.#text[this.#at];
      if (ch === undefined) this.#fail(start, 'a string is never closed.');
      if (ch === '"') {
        this.#at += 1;
        return value;
      }
      if (ch < ' ') this.#fail(this.#at, 'a control character inside a string (write it as an escape such as \\n or \\t).');
      if (ch !== '\\') {
        value += ch;
        this.#at += 1;
        continue;
      }
      const escape = this.#text[this.#at + 1] ?? '';
      if (escape === 'u') {
        const hex = this.#text.slice(this.#at + 2, this.#at + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.#fail(this.#at, 'a \\u escape takes four hexadecimal digits.');
        value += String.fromCharCode(parseInt(hex, 16));
        this.#at += 6;
      } else if (Object.hasOwn(ESCAPES, escape)) {
        value += ESCAPES[escape];
        this.#at += 2;
      } else this.#fail(this.#at, `an unknown escape \\${escape} in a string.`);
    }
  }

  #space(): void {
    while (this.#at < this.#text.length && WS.has(this.#text[this.#at]!)) this.#at += 1;
  }

  #describe(at: number): string {
    if (at >= this.#text.length) return 'the end of the line';
    return JSON.stringify(this.#text.slice(at, at + 12));
  }

  #fail(at: number, reason: string): never {
    throw new SetsFileError(this.#file, this.#line, at + 1, reason);
  }
}
