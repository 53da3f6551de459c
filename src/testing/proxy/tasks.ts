import type { TaskFaults } from '../faults/task-faults.js';

/**
 * One proxy task; its state is computed from its age on every read, so no timer runs.
 *
 * @example
 * const task = tasks.get(id);
 */
export interface ProxyTask {
  id: string;
  kind: 'image' | 'video';
  endpoint: string;
  createdAt: number;
  fails: boolean;
  /** Fault decisions fixed at submission (polls that miss the task, header switches kept for later polls). */
  faults: TaskFaults;
  body: Record<string, unknown>;
  credits: number;
}

/**
 * The proxy tasks of one simulator by id, shared by the proxy routes and the results they serve.
 *
 * @example
 * const tasks: ProxyTasks = new Map();
 */
export type ProxyTasks = Map<string, ProxyTask>;

/**
 * Image task status by age: CREATED for the first third, IN_PROGRESS, then COMPLETED or FAILED.
 *
 * @example
 * imageStatus(task, Date.now(), 1000); // 'IN_PROGRESS'
 */
export function imageStatus(task: ProxyTask, now: number, duration: number): string {
  const age = now - task.createdAt;
  if (age < duration / 3) return 'CREATED';
  if (age < duration) return 'IN_PROGRESS';
  return task.fails ? 'FAILED' : 'COMPLETED';
}

/**
 * Video task state by age: created, queueing, processing, then success or failed.
 *
 * @example
 * videoState(task, Date.now(), 1000); // 'queueing'
 */
export function videoState(task: ProxyTask, now: number, duration: number): string {
  const age = now - task.createdAt;
  if (age < duration / 4) return 'created';
  if (age < duration / 2) return 'queueing';
  if (age < duration) return 'processing';
  return task.fails ? 'failed' : 'success';
}

/**
 * True once a task reached its successful terminal state, so its results exist.
 *
 * @example
 * if (!succeeded(task, now(), 1000)) return sendJson(res, 404, { code: 'NoSuchKey' });
 */
export function succeeded(task: ProxyTask, now: number, duration: number): boolean {
  return task.kind === 'image' ? imageStatus(task, now, duration) === 'COMPLETED' : videoState(task, now, duration) === 'success';
}
