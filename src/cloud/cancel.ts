// Stopping jobs, all of it: the routes, and how the watchers of a cancelled job settle. The newest
// servers cancel one job with `POST /api/jobs/{id}/cancel`; the others take two calls: remove it
// from the queue when pending, interrupt it when running. The cloud's interrupt stops every
// running job of the user, so it is never sent for one job; it is `interruptAll()`, called by name
// (docs/wire-protocol.md#cloud-job-control-listing-and-queue).
import { ApiError, NotFoundError, type HttpClient, type RequestOptions } from '../core/index.js';
import type { JobReader } from './shared/job-reader.js';
import type { CancelResult, JobQueue, JobRoutes } from './shared/job-types.js';
import { CancelSchema, QueueDeleteSchema } from './shared/wire.js';
import type { WatchHub } from './watch/hub.js';

const NOT_CANCELLED = (reason: CancelResult['reason']): CancelResult => ({ cancelled: false, via: undefined, reason });

/**
 * Cancels jobs, with the route each server has, and settles their watchers. Remembers, per
 * client, a server that lacks the cancel route.
 *
 * @example
 * ```ts
 * const control = new JobControl({ http, reader, hub, routes: CLOUD_DEFAULTS.jobRoutes });
 * const { cancelled } = await control.cancel(promptId, undefined);
 * ```
 */
export class JobControl {
  readonly #parts: ConstructorParameters<typeof JobControl>[0];
  #cancelRoute: 'unknown' | 'present' | 'missing' = 'unknown';

  constructor(parts: { http: HttpClient; reader: JobReader; hub: WatchHub; routes: Readonly<JobRoutes> }) {
    this.#parts = parts;
  }

  /** Cancels one job: the cancel route, else dequeue (pending) or, on a local runtime, interrupt (running). */
  async cancel(promptId: string, options: RequestOptions | undefined): Promise<CancelResult> {
    const { http, routes } = this.#parts;
    if (routes.cancel !== false && this.#cancelRoute !== 'missing') {
      try {
        // Cancelling twice does no harm: a transient failure is retried like a read.
        const path = routes.cancel.replaceAll('{id}', encodeURIComponent(promptId));
        const answer = await http.request({ method: 'POST', path, schema: CancelSchema, idempotent: true, options });
        this.#cancelRoute = 'present';
        if (!answer.cancelled) return NOT_CANCELLED('ended_or_unknown');
        return this.#cancelled(promptId, 'cancel', undefined);
      } catch (error) {
        // A server without the route; an unknown job is `{cancelled: false}` where it exists.
        if (!(error instanceof NotFoundError || (error instanceof ApiError && error.status === 405))) throw error;
        this.#cancelRoute = 'missing';
      }
    }
    return this.#cancelInTwoCalls(promptId, options);
  }

  /**
   * `POST /api/interrupt` without a body: on the cloud every running job of the user stops; on a
   * local runtime the job that is running, whoever submitted it.
   */
  async interruptAll(options: RequestOptions | undefined): Promise<void> {
    // Never retried: a second call could stop a job that started in between.
    await this.#parts.http.request({ method: 'POST', path: this.#parts.routes.interrupt, idempotent: false, options });
  }

  async #cancelInTwoCalls(promptId: string, options: RequestOptions | undefined): Promise<CancelResult> {
    const { http, reader, routes } = this.#parts;
    const runtime = await reader.detect(options);
    let queue = await reader.queue(options);
    if (has(queue.pending, promptId)) {
      const answer = await http.request({ method: 'POST', path: routes.queue, json: { delete: [promptId] }, schema: QueueDeleteSchema, idempotent: true, options });
      const deleted = answer?.deleted?.map(String);
      // The cloud names what it removed; a local runtime answers nothing, so look again.
      if (deleted?.includes(promptId) !== true) queue = await reader.queue(options);
      if (deleted?.includes(promptId) === true || (!has(queue.pending, promptId) && !has(queue.running, promptId))) return this.#cancelled(promptId, 'queue', false);
    }
    if (!has(queue.running, promptId)) return NOT_CANCELLED('ended_or_unknown');
    if (runtime === 'cloud') return NOT_CANCELLED('running_not_cancellable');
    // Only this job: a local runtime interrupts the job its body names if that one runs.
    await http.request({ method: 'POST', path: routes.interrupt, json: { prompt_id: promptId }, idempotent: true, options });
    return this.#cancelled(promptId, 'interrupt', true);
  }

  /**
   * The job was stopped: a watch that then finds it nowhere reads it as cancelled, and its
   * watchers settle. A job removed from the queue before it ran (`ran: false`) never reaches any
   * record of a local runtime (docs/wire-protocol.md#cloud-job-control-listing-and-queue), so they
   * settle as `cancelled` now. A run seen from its start ends with its own
   * `execution_interrupted`; its status is read at once in case the socket misses it. Otherwise
   * they settle as `cancelled` now, with the outputs the server recorded.
   */
  #cancelled(promptId: string, via: NonNullable<CancelResult['via']>, ran: boolean | undefined): CancelResult {
    const { reader, hub } = this.#parts;
    reader.noteCancelled(promptId);
    const seen = hub.watching(promptId);
    if (seen) {
      if (ran !== false && seen.sawStart && !seen.gap) hub.readNow(promptId);
      else {
        const error = { message: `Job ${promptId} was cancelled (cloud.jobs.cancel())` };
        hub.settle(promptId, { status: 'cancelled', error, via: 'cancel', outputsComplete: ran === false }, ran !== false);
      }
    }
    return { cancelled: true, via, reason: undefined };
  }
}

function has(items: JobQueue['pending'], promptId: string): boolean {
  return items.some((item) => item.promptId === promptId);
}
