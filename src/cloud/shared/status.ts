import { own } from '../../core/index.js';
import type { JobStatus, JobStatusInfo } from './types.js';

/**
 * How one raw status value reads: its documented value and whether it is final.
 *
 * @example
 * ```ts
 * new CloudClient({ baseUrl, apiKey, statusMap: { warming_up: { status: 'pending', terminal: false } } });
 * ```
 */
export interface StatusMapping {
  /** The documented status the raw value stands for. */
  status: JobStatus;
  /** True when the job will not change any more (`completed`, `failed`, `cancelled`); false while a job winds down (`erroring`, `cancel_requested`...). */
  terminal: boolean;
}

/** The documented job statuses, in the order a job goes through them. */
export const JOB_STATUSES: readonly JobStatus[] = Object.freeze(['pending', 'in_progress', 'completed', 'failed', 'cancelled']);

const entry = (status: JobStatus, terminal: boolean): StatusMapping => Object.freeze({ status, terminal });

// Each documented status, whether it is final, and the raw values that stand for it.
const VOCABULARY: readonly (readonly [JobStatus, boolean, readonly string[]])[] = [
  ['pending', false, ['pending', 'submitted', 'queued_limited', 'queued_waiting']],
  ['pending', false, ['waiting_to_dispatch', 'allocated', 'preparing', 'pending_execution']],
  ['in_progress', false, ['in_progress', 'executing', 'executed']],
  ['completed', true, ['completed', 'success']],
  ['failed', true, ['failed', 'error', 'non_retryable_error', 'lost']],
  ['cancelled', true, ['cancelled', 'canceled']],
  // Not yet final: the run is winding down and will report the final state shortly.
  ['failed', false, ['erroring']],
  ['cancelled', false, ['cancel_requested', 'cancel_pending', 'cancelling_preparing']],
];

/**
 * Both status vocabularies of the job status route: the documented values and the raw internal
 * states deployed servers have been seen to send (docs/wire-protocol.md#cloud-job-status-vocabularies).
 * Extend or override it with `new CloudClient({ statusMap })`.
 *
 * @example
 * ```ts
 * JOB_STATUS_MAP.queued_waiting; // { status: 'pending', terminal: false }
 * ```
 */
export const JOB_STATUS_MAP: Readonly<Record<string, StatusMapping>> = Object.freeze(
  Object.fromEntries(VOCABULARY.flatMap(([status, terminal, raws]) => raws.map((raw) => [raw, entry(status, terminal)]))),
);

const IN_FLIGHT = entry('in_progress', false);

/**
 * Maps a raw status value (either vocabulary, any case) to its documented value. An unknown
 * value counts as in flight rather than failing.
 *
 * @example
 * ```ts
 * mapJobStatus('non_retryable_error'); // { status: 'failed', terminal: true }
 * mapJobStatus('warming_up');          // { status: 'in_progress', terminal: false }
 * ```
 */
export function mapJobStatus(raw: string, overrides?: Readonly<Record<string, StatusMapping>>): StatusMapping {
  const key = raw.trim().toLowerCase();
  // Own keys only: a status named `constructor` or `__proto__` is an unknown value, not a method.
  return (overrides && own(overrides, key)) ?? own(JOB_STATUS_MAP, key) ?? IN_FLIGHT;
}

/**
 * Reads a local runtime's `/history/{id}` answer: `{}` while pending, running or unknown;
 * `{<id>: {outputs, status: {status_str, completed, messages}}}` when done
 * (docs/wire-protocol.md#cloud-local-runtimes).
 *
 * @example
 * ```ts
 * historyStatus('p1', { p1: { status: { status_str: 'success', completed: true } } }).status; // 'completed'
 * ```
 */
export function historyStatus(promptId: string, body: Record<string, unknown>, overrides?: Readonly<Record<string, StatusMapping>>): JobStatusInfo {
  const entry = own(body, promptId);
  if (!entry || typeof entry !== 'object') return { promptId, status: 'pending', raw: 'history:absent', terminal: false };
  const status = own(entry, 'status');
  const statusStr = own(status, 'status_str');
  const raw = typeof statusStr === 'string' ? statusStr : own(status, 'completed') === true ? 'success' : 'history:present';
  if (historyMessage(entry, ['execution_interrupted'])) return { promptId, status: 'cancelled', raw, terminal: true, errorMessage: 'Execution was interrupted' };
  if (raw === 'history:present') return { promptId, status: 'completed', raw, terminal: true };
  const errorMessage = own(historyMessage(entry, ['execution_error']), 'exception_message');
  return { promptId, ...mapJobStatus(raw, overrides), raw, errorMessage: typeof errorMessage === 'string' ? errorMessage : undefined };
}

/**
 * The data of the first message of one of `types` in a history entry's `status.messages`
 * (`[type, data]` pairs), or `undefined`.
 *
 * @example
 * ```ts
 * historyMessage({ status: { messages: [['execution_error', { node_id: '3' }]] } }, ['execution_error']); // { node_id: '3' }
 * ```
 */
export function historyMessage(entry: unknown, types: readonly string[]): unknown {
  const messages = own(own(entry, 'status'), 'messages');
  const found: unknown = Array.isArray(messages) ? messages.find((m: unknown) => Array.isArray(m) && types.includes(m[0] as string)) : undefined;
  return Array.isArray(found) ? found[1] : undefined;
}
