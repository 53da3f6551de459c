// The parsers of `graphcloud batch --inputs`: strict CSV and JSON Lines, each mistake named by
// line and column. Property tests compare the JSON Lines reader with JSON.parse, and the CSV
// reader with a writer that quotes as RFC 4180 does.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCsv } from '../../src/cli/commands/batch/csv.js';
import { parseJsonl } from '../../src/cli/commands/batch/jsonl.js';
import { SetsFileError } from '../../src/cli/commands/batch/sets-error.js';

/** The error a parse throws, or undefined when it accepts the text. */
function failure(parse: () => unknown): SetsFileError | undefined {
  try {
    parse();
    return undefined;
  } catch (error) {
    if (error instanceof SetsFileError) return error;
    throw error;
  }
}

/** A plain copy (prototype-free objects become ordinary ones) to compare with JSON.parse's. */
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value)) as unknown;

describe('parseJsonl()', () => {
  it('reads one object per line, skipping blank lines, keeping the members in order', () => {
    const records = parseJsonl('\uFEFF{"KSampler.seed": 1, "Positive.text": "a fox"}\r\n\n  \n{"@Load Image.image":"a.png"}\n', 'sets.jsonl');
    expect(records).toEqual([
      { line: 1, entries: [{ key: 'KSampler.seed', value: 1, line: 1, column: 2 }, { key: 'Positive.text', value: 'a fox', line: 1, column: 22 }] },
      { line: 4, entries: [{ key: '@Load Image.image', value: 'a.png', line: 4, column: 2 }] },
    ]);
  });

  it.each([
    ['{"a":1,}', 8, 'expected a key in double quotes, found "}".'],
    ['{"a" 1}', 6, "expected ':' after the key"],
    ['{"a":tru}', 6, 'expected a JSON value, found "tru}".'],
    ['{"a":1', 7, "expected ',' or '}' after a value, found the end of the line."],
    ['[1, 2]', 1, 'expected a JSON object'],
    ['{"a":1} x', 9, 'text after the object'],
    ['{"a":"b\\q"}', 8, 'an unknown escape \\q'],
    ['{"a":01}', 7, "expected ',' or '}'"],
    ['{"a":"x', 6, 'a string is never closed.'],
    ['{"seed":1,"seed":2}', 11, 'the key "seed" is given twice in one object (also at column 2).'],
  ])('%s fails at column %i', (line, column, reason) => {
    const error = failure(() => parseJsonl(`{"ok":true}\n${line}\n`, 'sets.jsonl'));
    expect(error).toBeInstanceOf(SetsFileError);
    expect(error).toMatchObject({ line: 2, column, exitCode: 2 });
    expect(error!.message).toContain(`sets.jsonl line 2, column ${column}: `);
    expect(error!.message).toContain(reason);
  });

  it('keeps a key named __proto__ as data, in prototype-free objects', () => {
    const [record] = parseJsonl('{"__proto__": {"__proto__": 1}, "x.y": {"constructor": 2}}', 'sets.jsonl');
    expect(record!.entries[0]!.key).toBe('__proto__');
    const inner = record!.entries[0]!.value as Record<string, unknown>;
    expect(Object.getPrototypeOf(inner)).toBe(null);
    expect(Object.keys(inner)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reads every object JSON.stringify writes as JSON.parse reads it back', () => {
    const object = fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 4 }), { maxKeys: 6 });
    fc.assert(
      fc.property(object, (value) => {
        const line = JSON.stringify(value);
        const [record] = parseJsonl(line, 'p.jsonl');
        expect(record!.entries.map((e) => e.key)).toEqual(Object.keys(JSON.parse(line) as object));
        expect(plain(Object.fromEntries(record!.entries.map((e) => [e.key, e.value])))).toEqual(JSON.parse(line));
      }),
      { numRuns: 300 },
    );
  });

  it('accepts a line exactly when JSON.parse reads one object from it (keys given once), and then reads the same', () => {
    // Objects as JSON.stringify writes them (spaced or not), then edited a few times with JSON's own
    // characters: about half stay JSON, the rest break in every way an edit can.
    const piece = fc.constantFrom('{', '}', '[', ']', '"', ':', ',', ' ', '\t', '0', '1', '-', '.', 'e', '+', 'a', 'true', 'null', '\\', '\\u00e9', '\\n', '"k"', '"k":1', '\u0001', '\r');
    const edit = fc.tuple(fc.nat(), fc.nat({ max: 2 }), piece);
    const near = fc
      .tuple(fc.dictionary(fc.constantFrom('k', 'a', 'KSampler.seed', '__proto__', 'é'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }), fc.boolean(), fc.array(edit, { maxLength: 2 }))
      .map(([value, spaced, edits]) => {
        let line = JSON.stringify(value, null, spaced ? 1 : undefined).replaceAll('\n', ' ');
        for (const [at, drop, text] of edits) {
          const i = at % (line.length + 1);
          line = line.slice(0, i) + text + line.slice(i + drop);
        }
        return line;
      });
    fc.assert(
      fc.property(near, (line) => {
        let oracle: unknown;
        let oracleOk = true;
        try {
          oracle = JSON.parse(line);
        } catch {
          oracleOk = false;
        }
        const error = failure(() => parseJsonl(line, 'p.jsonl'));
        const isObject = oracleOk && oracle !== null && typeof oracle === 'object' && !Array.isArray(oracle);
        if (line.trim() === '') {
          expect(error).toBeUndefined();
          return;
        }
        if (!isObject) {
          expect(error).toBeInstanceOf(SetsFileError);
          expect(error!.line).toBe(1);
          expect(error!.column).toBeGreaterThanOrEqual(1);
          expect(error!.column).toBeLessThanOrEqual(line.length + 1);
          return;
        }
        // JSON.parse keeps the last of two equal keys; this reader refuses them.
        if (error) {
          expect(error.message).toMatch(/is given twice in one object|nest deeper/);
          return;
        }
        const [record] = parseJsonl(line, 'p.jsonl');
        expect(plain(Object.fromEntries(record!.entries.map((e) => [e.key, e.value])))).toEqual(plain(oracle));
      }),
      { numRuns: 1000 },
    );
  });

  it('names the line of the broken record among valid and blank ones', () => {
    const lines = fc.array(fc.oneof(fc.constant(''), fc.constant('{"KSampler.seed": 1}'), fc.constant('  ')), { maxLength: 12 });
    fc.assert(
      fc.property(lines, lines, fc.constantFrom('{"a": 1', 'nope', '{"a": 1, "a": 2}', '{"a": [1,]}'), (before, after, broken) => {
        const text = [...before, broken, ...after].join('\n');
        const error = failure(() => parseJsonl(text, 'p.jsonl'));
        expect(error?.line).toBe(before.length + 1);
      }),
      { numRuns: 200 },
    );
  });
});

/** Writes a field as RFC 4180 does: quoted when it holds a comma, a quote or a line break (or when asked). */
function csvField(text: string, quote: boolean): string {
  return quote || /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

describe('parseCsv()', () => {
  it('reads a header and rows, with quoted fields holding commas, quotes and line breaks', () => {
    const text = 'KSampler.seed,Positive.text,Negative.text\r\n1,"a fox, running","say ""hi"""\r\n\r\n2,"two\nlines",\n3,"",x';
    const { header, rows } = parseCsv(text, 's.csv');
    expect(header.map((c) => [c.text, c.column])).toEqual([['KSampler.seed', 1], ['Positive.text', 15], ['Negative.text', 29]]);
    expect(rows.map((r) => [r.line, r.cells.map((c) => c.text)])).toEqual([
      [2, ['1', 'a fox, running', 'say "hi"']],
      [4, ['2', 'two\nlines', '']],
      [6, ['3', '', 'x']],
    ]);
    // An empty cell is no value; "" is the empty text.
    expect(rows[1]!.cells[2]).toMatchObject({ quoted: false, line: 5, column: 8 });
    expect(rows[2]!.cells[1]).toMatchObject({ quoted: true, column: 3 });
  });

  it.each([
    ['a,b\n1,2,3\n', 2, 5, 'the line has 3 fields, the header (line 1) has 2.'],
    ['a,b\n1\n', 2, 2, 'the line has 1 field, the header (line 1) has 2.'],
    ['a,b\n1,x"y\n', 2, 4, 'a quote inside an unquoted field'],
    ['a,b\n1,"x"y\n', 2, 6, 'text follows a closing quote'],
    ['a,b\n1,"x\n2,3\n', 2, 3, 'a quoted field is never closed'],
    ['a,a\n1,2\n', 1, 3, 'the column "a" is named twice (also column 1).'],
    ['a,,b\n1,2,3\n', 1, 3, 'a header cell is empty'],
    ['a,b\r1,2\n', 1, 4, 'a carriage return not followed by a line feed'],
    ['', 1, 1, 'the file has no header line'],
  ])('%j fails at line %i, column %i', (text, line, column, reason) => {
    const error = failure(() => parseCsv(text, 's.csv'));
    expect(error).toMatchObject({ line, column, exitCode: 2 });
    expect(error!.message).toBe(`s.csv line ${line}, column ${column}: ${error!.message.split(': ').slice(1).join(': ')}`);
    expect(error!.message).toContain(reason);
  });

  it('reads back every table a strict writer writes: the texts, the quoting, the lines and columns', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b', ' ', ',', '"', '\n', '\r\n', 'é', '1'), maxLength: 8 });
    const table = fc.integer({ min: 1, max: 4 }).chain((width) =>
      fc.record({
        header: fc.uniqueArray(text.filter((t) => t !== ''), { minLength: width, maxLength: width }),
        rows: fc.array(fc.array(fc.tuple(text, fc.boolean()), { minLength: width, maxLength: width }), { maxLength: 6 }),
        crlf: fc.boolean(),
        finalBreak: fc.boolean(),
      }),
    );
    fc.assert(
      fc.property(table, ({ header, rows, crlf, finalBreak }) => {
        // A row of one unquoted empty field is a blank line, which holds no record: quote it.
        const written = rows.map((row) => row.map(([cell, quote]) => csvField(cell, quote || (row.length === 1 && cell === ''))));
        const records = [header.map((h) => csvField(h, false)), ...written];
        const eol = crlf ? '\r\n' : '\n';
        const source = records.map((r) => r.join(',')).join(eol) + (finalBreak ? eol : '');
        const parsed = parseCsv(source, 'p.csv');
        expect(parsed.header.map((c) => c.text)).toEqual(header);
        expect(parsed.rows.map((r) => r.cells.map((c) => c.text))).toEqual(rows.map((row) => row.map(([cell]) => cell)));
        // Each cell's line and column point at its first character in the source.
        const lineStarts = [0, ...[...source.matchAll(/\n/g)].map((m) => m.index + 1)];
        for (const cell of [...parsed.header, ...parsed.rows.flatMap((r) => r.cells)]) {
          const at = lineStarts[cell.line - 1]! + cell.column - 1;
          const first = csvField(cell.text, cell.quoted)[0];
          if (first !== undefined) expect(source[at]).toBe(first);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('names the line and column of a stray quote in any row', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 3 }), (row, field, offset) => {
        const rows = Array.from({ length: 6 }, (_, r) => ['abcd', 'efgh', 'ijkl'].map((f, i) => (r === row && i === field ? `${f.slice(0, offset)}"${f.slice(offset)}` : f)));
        const source = ['x,y,z', ...rows.map((r) => r.join(','))].join('\n');
        const error = failure(() => parseCsv(source, 'p.csv'));
        // A quote first in a field opens a quoted field that is never closed; one elsewhere is a
        // stray quote: either way the error points at the quote.
        expect(error).toMatchObject({ line: row + 2, column: field * 5 + offset + 1 });
      }),
      { numRuns: 100 },
    );
  });
});
