// A run as it is kept on its BullMQ job: the prepared work (never file bytes), the stage its
// worker reached (the prompt or task id the moment it is known) and how it ended. The one place
// that reads and writes that shape, and that bounds its size.
import { ValidationError } from '../core/index.js';
import type { JobResult, Workflow } from '../cloud/shared/types.js';
import type { RunErrorInfo, RunProgress } from './types.js';

/**
 * The work of a run, ready to submit: an API-format workflow with its inputs and uploaded names
 * written in, or a media task.
 *
 * @example
 * ```ts
 * const work: RunWork = { kind: 'workflow', workflow: api };
 * ```
 */
export type RunWork = { kind: 'workflow'; workflow: Workflow; partnerApiKey?: boolean | undefined } | { kind: 'task'; task: string; params: Record<string, unknown> };

/**
 * How far a worker got: `submitting` is written before the request is sent, `running` the moment
 * its answer names the job.
 *
 * @example
 * ```ts
 * const stage: RunStage = { state: 'running', since, runtime: url, promptId };
 * ```
 */
export interface RunStage {
  state: 'submitting' | 'running';
  /** When the worker marked the run submitting, in ms since the epoch (the search for a lost answer starts here, less a margin). */
  since: number;
  /** The runtime sent to (its base URL). */
  runtime: string;
  /** Whether that runtime is local (a lost run there may be submitted again: it costs nothing). */
  local: boolean;
  /** The prompt id chosen before sending (a local runtime keeps it). */
  chosenPromptId?: string | undefined;
  promptId?: string | undefined;
  taskId?: string | undefined;
  taskKind?: string | undefined;
}

/**
 * Everything kept on the BullMQ job of a run.
 *
 * @example
 * ```ts
 * await job.updateData({ ...data, stage });
 * ```
 */
export interface RunData {
  v: 1;
  work: RunWork;
  addedAt: number;
  stage?: RunStage | undefined;
  takeovers?: number | undefined;
  /** How a run that did not complete ended. */
  outcome?: { state: 'failed' | 'cancelled' | 'unknown'; error: RunErrorInfo; result?: JobResult | undefined } | undefined;
}

/** The progress a worker writes (`job.updateProgress`). */
export type StoredProgress = RunProgress;

/**
 * The UTF-8 size of a value's JSON.
 *
 * @example
 * ```ts
 * jsonBytes({ a: 'é' }); // 10
 * ```
 */
export function jsonBytes(value: unknown): number {
  return new TextEncoder().encode(JSON.stringify(value)).byteLength;
}

/**
 * Refuses a run whose data is beyond `maxBytes` (Redis holds no file bytes, and no unbounded run).
 *
 * @throws {@link ValidationError} naming the size and the bound.
 * @example
 * ```ts
 * assertRunBytes(data, 1_048_576);
 * ```
 */
export function assertRunBytes(data: RunData, maxBytes: number): void {
  const bytes = jsonBytes(data);
  if (bytes > maxBytes) {
    throw new ValidationError([{ path: 'spec', rule: `run data of at most ${maxBytes} bytes (maxRunBytes); put files in uploads or behind URLs`, received: `${bytes} bytes` }], 'queue.add()');
  }
}

/**
 * Reads a job's data as a run's, or `undefined` for data that is not one (a job of another tool).
 *
 * @example
 * ```ts
 * const data = readRunData(job.data);
 * ```
 */
export function readRunData(value: unknown): RunData | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const data = value as Partial<RunData>;
  if (data.v !== 1 || typeof data.work !== 'object' || data.work === null) return undefined;
  return data as RunData;
}
