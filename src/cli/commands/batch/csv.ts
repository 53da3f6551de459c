import { SetsFileError } from './sets-error.js';

/**
 * One cell of a CSV file: its text, where it starts (1-based line and column), and whether it
 * was quoted (`""` is the empty text; an unquoted empty cell is no value).
 *
 * @example
 * ```ts
 * const cell: CsvCell = { text: '42', line: 2, column: 5, quoted: false };
 * ```
 */
export interface CsvCell {
  text: string;
  line: number;
  column: number;
  quoted: boolean;
}

/**
 * A CSV file read strictly: the header's cells, then one row of cells per record.
 *
 * @example
 * ```ts
 * const { header, rows } = parseCsv('KSampler.seed,Positive.text\n42,a fox\n', 'sweep.csv');
 * ```
 */
export interface CsvTable {
  header: CsvCell[];
  rows: { line: number; cells: CsvCell[] }[];
}

/**
 * Reads CSV as RFC 4180 writes it, strictly: fields split by `,`, records by LF or CRLF, a field
 * in double quotes may hold commas, line breaks and `""` (one quote). The first record is the
 * header (names neither empty nor repeated); every record has as many fields as the header;
 * blank lines are skipped; a byte-order mark is dropped. Anything else (a quote inside an
 * unquoted field, text after a closing quote, a quote never closed, a lone carriage return, a
 * record of the wrong length) is a `SetsFileError` naming the line and the column.
 *
 * @throws {SetsFileError} the text is not strict CSV.
 * @example
 * ```ts
 * parseCsv('a,b\n1,"x, y"\n', 'sets.csv').rows[0]!.cells.map((c) => c.text); // ['1', 'x, y']
 * ```
 */
export function parseCsv(text: string, file: string): CsvTable {
  const records = readRecords(text.startsWith('\uFEFF') ? text.slice(1) : text, file);
  const [head, ...rest] = records;
  if (!head) throw new SetsFileError(file, 1, 1, 'the file has no header line (the input addresses, separated by commas).');
  const seen = new Map<string, CsvCell>();
  for (const cell of head.cells) {
    if (cell.text === '') throw new SetsFileError(file, cell.line, cell.column, 'a header cell is empty: every column needs an input address.');
    const first = seen.get(cell.text);
    if (first) throw new SetsFileError(file, cell.line, cell.column, `the column "${cell.text}" is named twice (also column ${first.column}).`);
    seen.set(cell.text, cell);
  }
  for (const row of rest) {
    if (row.cells.length === head.cells.length) continue;
    const extra = row.cells[head.cells.length];
    const column = extra ? extra.column : row.end;
    throw new SetsFileError(file, row.line, column, `the line has ${row.cells.length} field${row.cells.length === 1 ? '' : 's'}, the header (line ${head.line}) has ${head.cells.length}.`);
  }
  return { header: head.cells, rows: rest.map(({ line, cells }) => ({ line, cells })) };
}

interface CsvRecord {
  line: number;
  cells: CsvCell[];
  /** The column just past the record's last character, on its last line. */
  end: number;
}

/** Splits the text into records of cells, keeping where each cell starts. */
function readRecords(text: string, file: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const column = (at: number): number => at - lineStart + 1;
  while (i < text.length) {
    // A blank line (nothing before its break) holds no record.
    if (text[i] === '\n' || (text[i] === '\r' && text[i + 1] === '\n')) {
      i += text[i] === '\r' ? 2 : 1;
      line += 1;
      lineStart = i;
      continue;
    }
    const record: CsvRecord = { line, cells: [], end: 1 };
    for (;;) {
      const cellLine = line;
      const cellColumn = column(i);
      let value = '';
      let quoted = false;
      if (text[i] === '"') {
        quoted = true;
        i += 1;
        for (;;) {
          if (i >= text.length) throw new SetsFileError(file, cellLine, cellColumn, 'a quoted field is never closed (a quote inside quotes is written "").');
          const ch = text[i]!;
          if (ch === '"') {
            if (text[i + 1] === '"') {
              value += '"';
              i += 2;
              continue;
            }
            i += 1;
            break;
          }
          if (ch === '\n') {
            line += 1;
            lineStart = i + 1;
          }
          value += ch;
          i += 1;
        }
        const next = text[i];
        if (next !== undefined && next !== ',' && next !== '\n' && !(next === '\r' && text[i + 1] === '\n')) {
          throw new SetsFileError(file, line, column(i), 'text follows a closing quote (a quote inside quotes is written "").');
        }
      } else {
        while (i < text.length && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') {
          if (text[i] === '"') throw new SetsFileError(file, line, column(i), 'a quote inside an unquoted field (quote the whole field, and write a quote inside it as "").');
          value += text[i];
          i += 1;
        }
        if (text[i] === '\r' && text[i + 1] !== '\n') throw new SetsFileError(file, line, column(i), 'a carriage return not followed by a line feed (lines end with LF or CRLF).');
      }
      record.cells.push({ text: value, line: cellLine, column: cellColumn, quoted });
      if (text[i] === ',') {
        i += 1;
        continue;
      }
      record.end = column(i);
      if (i < text.length) {
        i += text[i] === '\r' ? 2 : 1;
        line += 1;
        lineStart = i;
      }
      break;
    }
    records.push(record);
  }
  return records;
}
