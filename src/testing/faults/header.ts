import type { FaultSettings } from '../types/public.js';

/**
 * The header that injects faults into one request, e.g.
 * `x-sim-fault: status=503, retry-after=2` or `x-sim-fault: finish-before-response, garbage-frames`.
 *
 * @example
 * fetch(url, { headers: { [FAULT_HEADER]: 'delay=200' } });
 */
export const FAULT_HEADER = 'x-sim-fault';

/**
 * What one request carries in its `x-sim-fault` header.
 *
 * @example
 * parseFaultHeader('status=429, retry-after=3'); // { overrides: {}, status: 429, retryAfter: 3 }
 */
export interface HeaderFaults {
  overrides: Partial<FaultSettings>;
  status?: number;
  retryAfter?: number;
  /** `stall-body=ms`: headers at once, the body this many milliseconds later. */
  stallBodyMs?: number;
}

/**
 * Parses the `x-sim-fault` header: comma- or semicolon-separated `name` or `name=value` items.
 * Names: `status`, `retry-after`, `delay`, `raw-status`, `finish-before-response`, `drop-mid-run`,
 * `garbage-frames`, `cached-no-executed`, `drop-end`, `task-status-field` (=`task_status`), `wrap-style-transfer`, `not-found-polls`,
 * `stall-body` (=ms).
 *
 * @example
 * parseFaultHeader('delay=50, raw-status').overrides; // { delayMs: 50, rawStatusVocabulary: true }
 */
export function parseFaultHeader(value: string | undefined): HeaderFaults {
  const result: HeaderFaults = { overrides: {} };
  if (!value) return result;
  for (const item of value.split(/[,;]/)) {
    const [rawName = '', rawValue] = item.split('=', 2).map((part) => part.trim());
    const name = rawName.toLowerCase();
    const number = rawValue === undefined ? Number.NaN : Number(rawValue);
    const flag = rawValue === undefined || rawValue === 'true' || rawValue === '1';
    switch (name) {
      case 'status':
        if (Number.isInteger(number)) result.status = number;
        break;
      case 'retry-after':
        if (Number.isFinite(number)) result.retryAfter = number;
        break;
      case 'delay':
        if (Number.isFinite(number)) result.overrides.delayMs = number;
        break;
      case 'raw-status':
        result.overrides.rawStatusVocabulary = flag;
        break;
      case 'finish-before-response':
        result.overrides.finishBeforeResponse = flag;
        break;
      case 'drop-mid-run':
        result.overrides.dropSocketsMidRun = flag;
        break;
      case 'garbage-frames':
        result.overrides.garbageFrames = flag;
        break;
      case 'cached-no-executed':
        result.overrides.cachedWithoutExecuted = flag;
        break;
      case 'drop-end':
        result.overrides.dropEndMessages = flag;
        break;
      case 'task-status-field':
        result.overrides.taskStatusField = rawValue === 'status' ? 'status' : 'task_status';
        break;
      case 'wrap-style-transfer':
        result.overrides.wrapStyleTransfer = flag;
        break;
      case 'stall-body':
        if (Number.isFinite(number) && number >= 0) result.stallBodyMs = number;
        break;
      case 'not-found-polls':
        if (Number.isInteger(number)) result.overrides.taskNotFoundPolls = number;
        break;
      default:
        break;
    }
  }
  return result;
}
