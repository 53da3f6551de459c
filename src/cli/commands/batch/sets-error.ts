import { CliError } from '../../base/errors.js';
import { EXIT } from '../../base/exit-codes.js';

/**
 * A mistake in a file of input sets (`batch --inputs`): the message names the file, the line and
 * the column (both 1-based; a column counts UTF-16 code units, as most editors' "column" does for
 * text without emoji); exit code 2, nothing was sent.
 *
 * @example
 * ```ts
 * throw new SetsFileError('sweep.csv', 3, 7, 'a quoted field is never closed.');
 * // message: 'sweep.csv line 3, column 7: a quoted field is never closed.'
 * ```
 */
export class SetsFileError extends CliError {
  override name = 'SetsFileError';
  readonly file: string;
  readonly line: number;
  readonly column: number;

  constructor(file: string, line: number, column: number, reason: string) {
    super(`${file} line ${line}, column ${column}: ${reason}`, 'Fix the file and run again; nothing was sent.', EXIT.usage);
    this.file = file;
    this.line = line;
    this.column = column;
  }
}
