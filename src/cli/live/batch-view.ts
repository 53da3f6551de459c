import type { Style } from '../base/style.js';
import { clock } from '../base/values.js';
import type { BatchState } from './batch-state.js';
import { bar } from './run-view.js';

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
/** Sets running listed one per line; the others are counted on one more. */
const LISTED = 5;

/**
 * The lines of the live table of a batch, for a terminal `columns` wide:
 *
 * ```
 * ⠹ Batch  12 sets  00:42
 *   QUEUED  RUNNING  DONE  FAILED  ETA
 *        5        4     2       1  00:31
 *   ██████████░░░░░░░░░░░░░░░░░░░░   25%  3 of 12 sets ended
 *   #4   job 5d1e2c3a  ████████░░░░░░░░   52%
 *   #5   uploading
 *   #6   job 9c0e5fdc  worker lost, taken over within 42 s
 * ```
 *
 * While no worker is connected to the queue of a batch through Redis, a last line says so (and
 * the ETA shows `--:--`).
 *
 * A CANCELLED column appears once a set was cancelled; under 60 columns one short line is kept.
 *
 * @example
 * ```ts
 * const lines = renderBatch(state, process.stdout.columns, tick, style, Date.now());
 * ```
 */
export function renderBatch(state: BatchState, columns: number, tick: number, style: Style, now: number): string[] {
  const spinner = style('cyan', SPINNER[tick % SPINNER.length]!);
  const { queued, running, done, failed, cancelled } = state.counts;
  const eta = state.eta(now);
  const etaText = eta === undefined ? '--:--' : clock(eta);
  const headline = state.cancelling ? style(['bold', 'yellow'], 'Cancelling') : style('bold', 'Batch');
  const elapsed = style('dim', clock(now - state.startedAt));
  if (columns < 60) {
    const counts = `${done}✔ ${failed}✖ ${running}… ${queued} left`;
    return [[spinner, state.cancelling ? headline : '', counts, `ETA ${etaText}`].filter(Boolean).join(' ')];
  }
  const lines = [[spinner, headline, `${state.total} set${state.total === 1 ? '' : 's'}`, elapsed].join('  ')];
  if (state.activity) {
    lines.push(`  ${state.activity}`);
    return lines;
  }
  const header = ['QUEUED', 'RUNNING', 'DONE', 'FAILED', ...(cancelled > 0 ? ['CANCELLED'] : []), 'ETA'];
  const values = [queued, running, done, failed, ...(cancelled > 0 ? [cancelled] : [])].map(String).concat(etaText);
  lines.push(`  ${style('dim', header.join('  '))}`);
  lines.push(`  ${values.map((value, i) => value.padStart(header[i]!.length)).join('  ')}`);
  const fraction = state.total === 0 ? 1 : state.finished / state.total;
  const barWidth = Math.max(10, Math.min(30, columns - 40));
  lines.push(`  ${bar(fraction, barWidth, style)}  ${String(Math.floor(fraction * 100)).padStart(3)}%  ${state.finished} of ${state.total} sets ended`);
  const width = String(state.total).length + 1;
  let listed = 0;
  for (const active of state.active.values()) {
    if (listed === LISTED) break;
    listed += 1;
    const label = `#${active.index}`.padEnd(width);
    if (active.lostUntil !== undefined) {
      const job = active.promptId ? `  ${style('dim', `job ${active.promptId.slice(0, 8)}`)}` : '';
      lines.push(`  ${label}${job}  ${style('yellow', lostText(active.lostUntil, now, state.noWorker))}`);
      continue;
    }
    if (!active.promptId) {
      lines.push(`  ${label}  ${style('dim', state.cancelling ? 'cancelling' : 'preparing')}`);
      continue;
    }
    const job = style('dim', `job ${active.promptId.slice(0, 8)}`);
    const part = active.fraction ?? active.run.fraction();
    const phase = active.run.phase === 'pending' ? style('dim', 'queued on the server') : part === undefined ? '' : `${bar(part, 16, style)}  ${String(Math.floor(part * 100)).padStart(3)}%`;
    lines.push(`  ${label}  ${job}  ${phase}`.trimEnd());
  }
  if (state.active.size > listed) lines.push(style('dim', `  … ${state.active.size - listed} more running`));
  if (state.noWorker !== undefined) lines.push(`  ${style('yellow', `no worker connected to queue ${state.noWorker}`)}${style('dim', `: start one with \`${workerCommand(state.noWorker)}\``)}`);
  return lines;
}

/**
 * What a set whose worker is gone waits for: another worker to take it over, at the latest when
 * its lock lapses and the next stalled check runs; with no worker connected, for one to start.
 *
 * @example
 * ```ts
 * lostText(Date.now() + 41_200, Date.now(), undefined); // 'worker lost, taken over within 42 s'
 * ```
 */
export function lostText(until: number, now: number, noWorker: string | undefined): string {
  if (noWorker !== undefined) return 'worker lost, taken over once a worker connects';
  const seconds = Math.ceil(Math.max(0, until - now) / 1000);
  return seconds === 0 ? 'worker lost, being taken over' : `worker lost, taken over within ${seconds} s`;
}

/**
 * The command that starts a worker on a queue (the default queue needs no flag).
 *
 * @example
 * ```ts
 * workerCommand('renders'); // 'graphcloud worker --queue renders'
 * ```
 */
export function workerCommand(queue: string): string {
  return queue === 'graphcloud' ? 'graphcloud worker' : `graphcloud worker --queue ${queue}`;
}
