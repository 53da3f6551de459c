import { readFile } from 'node:fs/promises';
import { dirname, extname, isAbsolute, join } from 'node:path';
import { WorkflowAddressError, type CloudClient, type Workflow } from '../../../index.js';
import { CliError, usageError } from '../../base/errors.js';
import { EXIT } from '../../base/exit-codes.js';
import { typedValue } from '../../base/values.js';
import { parseCsv } from './csv.js';
import { parseJsonl } from './jsonl.js';
import { SetsFileError } from './sets-error.js';
import { declaredExample, locate } from '../../base/workflow-input.js';

/**
 * One input set of a batch, resolved against the workflow: the values and the files of one run.
 *
 * @example
 * ```ts
 * const set: BatchSet = { index: 1, line: 2, inputs: { '3.seed': 42 }, uploads: {}, columns: new Map([['3.seed', 1]]) };
 * ```
 */
export interface BatchSet {
  /** 1-based, in the file's order: the set's number and the name of its output folder. */
  index: number;
  /** The line of the file it comes from. */
  line: number;
  /** Values by `<nodeId>.<input>` (the address resolved once, so every set means the same input). */
  inputs: Record<string, unknown>;
  /** Files to upload by `<nodeId>.<input>`, as paths (relative ones taken from the file's folder). */
  uploads: Record<string, string>;
  /** The column each `<nodeId>.<input>` was given in, to name a mistake found later. */
  columns: Map<string, number>;
}

/** One key and value of a line, before resolution. */
interface RawEntry {
  key: string;
  line: number;
  column: number;
  /** A CSV cell is text, typed like `--set`; a JSON Lines value is taken as it is. */
  value: { text: string } | { json: unknown };
}

/** The formats `--inputs` reads, by file extension. */
const FORMATS: Readonly<Record<string, 'csv' | 'jsonl'>> = Object.freeze({ '.csv': 'csv', '.jsonl': 'jsonl', '.ndjson': 'jsonl' });

/**
 * Reads a file of input sets (`.jsonl`/`.ndjson`: one JSON object per line; `.csv`: a header of
 * addresses, one set per line) and resolves every key against the workflow before anything is
 * sent: an address naming no input, a value of the wrong type or a missing upload fails with the
 * file, line and column. A key `@<address>` names a file to upload into that input; an unquoted
 * empty CSV cell leaves the input as the workflow has it (`""` sets the empty text).
 *
 * @throws {SetsFileError} a mistake in the file; {CliError} a file that cannot be read.
 * @example
 * ```ts
 * const sets = await readSets('sweep.csv', workflow, info, 'graphcloud batch --help');
 * ```
 */
export async function readSets(file: string, workflow: Workflow, info: CloudClient.ObjectInfo | undefined, help: string): Promise<BatchSet[]> {
  const format = FORMATS[extname(file).toLowerCase()];
  if (!format) throw usageError(`--inputs takes a .jsonl, .ndjson or .csv file, received "${file}".`, help);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw usageError(`Cannot read ${file}: ${(error as { code?: string }).code === 'ENOENT' ? 'no such file' : error instanceof Error ? error.message : String(error)}.`, help);
  }
  const records = format === 'csv' ? csvRecords(text, file) : parseJsonl(text, file).map(({ line, entries }) => ({ line, entries: entries.map((e): RawEntry => ({ ...e, value: { json: e.value } })) }));
  if (records.length === 0) throw new CliError(`${file} holds no input set.`, format === 'csv' ? 'Write the addresses on the first line, then one set per line.' : 'Write one JSON object per line.', EXIT.usage);
  const resolver = new Resolver(workflow, info, file, dirname(file));
  return records.map(({ line, entries }, i) => resolver.set(i + 1, line, entries));
}

function csvRecords(text: string, file: string): { line: number; entries: RawEntry[] }[] {
  const { header, rows } = parseCsv(text, file);
  return rows.map(({ line, cells }) => ({
    line,
    // An unquoted empty cell is no value: the input keeps the workflow's.
    entries: cells.flatMap((cell, i) => (cell.text === '' && !cell.quoted ? [] : [{ key: header[i]!.text, line: cell.line, column: cell.column, value: { text: cell.text } }])),
  }));
}

/** Resolves keys once each (every set names the same inputs), then types each set's values. */
class Resolver {
  readonly #workflow: Workflow;
  readonly #info: CloudClient.ObjectInfo | undefined;
  readonly #file: string;
  readonly #folder: string;
  readonly #keys = new Map<string, { nodeId: string; input: string; upload: boolean }>();

  constructor(workflow: Workflow, info: CloudClient.ObjectInfo | undefined, file: string, folder: string) {
    this.#workflow = workflow;
    this.#info = info;
    this.#file = file;
    this.#folder = folder;
  }

  set(index: number, line: number, entries: readonly RawEntry[]): BatchSet {
    const set: BatchSet = { index, line, inputs: Object.create(null) as Record<string, unknown>, uploads: Object.create(null) as Record<string, string>, columns: new Map() };
    for (const entry of entries) {
      const fail = (reason: string): never => {
        throw new SetsFileError(this.#file, entry.line, entry.column, reason);
      };
      const { nodeId, input, upload } = this.#resolve(entry, fail);
      const target = `${nodeId}.${input}`;
      if (set.columns.has(target)) fail(`"${entry.key}" names node ${nodeId} input "${input}", which column ${set.columns.get(target)} sets already.`);
      set.columns.set(target, entry.column);
      if (upload) {
        const path = 'text' in entry.value ? entry.value.text : entry.value.json;
        if (typeof path !== 'string' || path === '') fail(`"${entry.key}" takes the path of a file to upload, received ${JSON.stringify(path)}.`);
        set.uploads[target] = isAbsolute(path as string) ? (path as string) : join(this.#folder, path as string);
        continue;
      }
      if ('json' in entry.value) {
        set.inputs[target] = entry.value.json;
        continue;
      }
      const current = this.#workflow[nodeId]!.inputs[input];
      const like = current === undefined || Array.isArray(current) ? declaredExample(this.#info, this.#workflow[nodeId]!.class_type, input) : current;
      set.inputs[target] = typedValue({ key: entry.key, value: entry.value.text, json: false }, like, `${this.#file} line ${entry.line}, column ${entry.column}:`, 'graphcloud batch --help');
    }
    return set;
  }

  #resolve(entry: RawEntry, fail: (reason: string) => never): { nodeId: string; input: string; upload: boolean } {
    const known = this.#keys.get(entry.key);
    if (known) return known;
    const upload = entry.key.startsWith('@');
    try {
      const resolved = { ...locate(this.#workflow, upload ? entry.key.slice(1) : entry.key, this.#info), upload };
      this.#keys.set(entry.key, resolved);
      return resolved;
    } catch (error) {
      if (error instanceof WorkflowAddressError) return fail(error.message);
      throw error;
    }
  }
}
