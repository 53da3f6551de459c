import type { Style } from '../base/style.js';
import { clock } from '../base/values.js';
import type { RunState } from './run-state.js';

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * The lines of the live display of a run, for a terminal `columns` wide:
 *
 * ```
 * ⠹ Running  job 5d1e2c3a  00:12
 *   ████████████████████░░░░░░░░░░░░░░░░░░░░   52%  3 of 6 nodes
 *   KSampler #3  ████████████████░░░░░░░░  12/20
 * ```
 *
 * Under 60 columns it keeps two short lines, under 32 one; bars shrink, then go.
 *
 * @example
 * ```ts
 * const lines = renderRun(state, process.stdout.columns, tick, style, Date.now());
 * ```
 */
export function renderRun(state: RunState, columns: number, tick: number, style: Style, now: number): string[] {
  const spinner = style('cyan', SPINNER[tick % SPINNER.length]!);
  const elapsed = style('dim', clock(now - state.startedAt));
  const fraction = state.fraction();
  const percent = fraction === undefined ? '' : `${String(Math.floor(fraction * 100)).padStart(3)}%`;
  const step = state.max > 0 ? `${state.value}/${state.max}` : '';
  const node = state.node ? state.nodeName(state.node) : '';
  const headline = headlineOf(state, style);

  if (columns < 32) return [[spinner, percent.trim() || headline, node && shortName(node), step].filter(Boolean).join(' ')];
  if (columns < 60) {
    const first = [spinner, headline, percent.trim(), elapsed].filter(Boolean).join(' ');
    const second = state.phase === 'running' || state.phase === 'cancelling' ? `  ${[node && shortName(node), step].filter(Boolean).join(' ')}` : `  ${detailOf(state)}`;
    return [first, second];
  }
  const job = state.promptId ? style('dim', `job ${state.promptId.slice(0, 8)}`) : '';
  const lines = [[spinner, headline, job, elapsed].filter(Boolean).join('  ')];
  if (state.phase === 'preparing' || state.phase === 'pending') {
    lines.push(`  ${detailOf(state)}`);
    return lines;
  }
  const { done, total } = state.counts;
  const count = total > 0 ? `${Math.min(done, total)} of ${total} nodes` : `${done} node${done === 1 ? '' : 's'} done`;
  const barWidth = Math.max(10, Math.min(40, columns - 30));
  lines.push(fraction === undefined ? `  ${count}` : `  ${bar(fraction, barWidth, style)}  ${percent}  ${count}`);
  if (node) {
    const nodeBarWidth = Math.max(8, Math.min(24, columns - node.length - 16));
    lines.push(state.max > 0 ? `  ${node}  ${bar(state.value / state.max, nodeBarWidth, style)}  ${step}` : `  ${node}`);
  }
  return lines;
}

function headlineOf(state: RunState, style: Style): string {
  switch (state.phase) {
    case 'preparing':
      return style('bold', 'Preparing');
    case 'pending':
      return style('bold', 'Queued');
    case 'cancelling':
      return style(['bold', 'yellow'], 'Cancelling');
    default:
      return style('bold', 'Running');
  }
}

function detailOf(state: RunState): string {
  if (state.phase === 'preparing') return state.activity;
  if (state.phase === 'pending') {
    if (state.queuePosition !== undefined) return `position ${state.queuePosition} in the queue`;
    if (state.queueRemaining !== undefined) return `${state.queueRemaining} job${state.queueRemaining === 1 ? '' : 's'} in the queue`;
    return 'waiting for a worker';
  }
  return '';
}

function shortName(name: string): string {
  // "Positive (CLIPTextEncode) #6" → "Positive #6" when space is short.
  return name.replace(/ \([^)]*\)/, '');
}

/**
 * A progress bar `width` cells wide.
 *
 * @example
 * ```ts
 * bar(0.5, 10, style); // '█████░░░░░'
 * ```
 */
export function bar(fraction: number, width: number, style: Style): string {
  const filled = Math.max(0, Math.min(width, Math.round(fraction * width)));
  return `${style('green', '█'.repeat(filled))}${style('dim', '░'.repeat(width - filled))}`;
}
