// Stopping jobs. The newest servers cancel one job with `POST /api/jobs/{id}/cancel`; the others
// take two calls: remove it from the queue when pending, interrupt it when running. The cloud's
// interrupt stops every running job of the user, so it is never sent for one job; it is
// `interruptAll()`, called by name (docs/wire-protocol.md#cloud-job-control-listing-and-queue).
import { ApiError, NotFoundError, type RequestOptions } from '../core/index.js';
import { getQueue, type JobLookupDeps } from './job-lookup.js';
import type { CancelResult, JobQueue } from './model/job-types.js';
import { CancelSchema, QueueDeleteSchema } from './model/job-wire.js';
import type { WatchHub } from './watch/hub.js';

/**
 * What job control needs: the lookup's parts and the hub, told when a watched job is cancelled.
 *
 * @example
 * ```ts
 * new JobControl({ http, reader, routes: CLOUD_DEFAULTS.jobRoutes, hub });
 * ```
 */
export interface JobControlDeps extends JobLookupDeps {
  hub: WatchHub;
}

const NOT_CANCELLED = (reason: CancelResult['reason']): CancelResult => ({ cancelled: false, via: undefined, reason });

/**
 * Cancels jobs, with the route each server has. Remembers, per client, a server that lacks the
 * cancel route.
 *
 * @example
 * ```ts
 * const control = new JobControl(deps);
 * const { cancelled } = await control.cancel(promptId);
 * ```
 */
export class JobControl {
  readonly #deps: JobControlDeps;
  #cancelRoute: 'unknown' | 'present' | 'missing' = 'unknown';

  constructor(deps: JobControlDeps) {
    this.#deps = deps;
  }

  /** Cancels one job: the cancel route, else dequeue (pending) or, on a local runtime, interrupt (running). */
  async cancel(promptId: string, options: RequestOptions | undefined): Promise<CancelResult> {
    const { http, routes, hub } = this.#deps;
    if (routes.cancel !== false && this.#cancelRoute !== 'missing') {
      try {
        // Cancelling twice does no harm: a transient failure is retried like a read.
        const answer = await http.request({ method: 'POST', path: fill(routes.cancel, promptId), schema: CancelSchema, idempotent: true, options });
        this.#cancelRoute = 'present';
        if (!answer.cancelled) return NOT_CANCELLED('ended_or_unknown');
        this.#deps.reader.noteCancelled(promptId);
        hub.cancelled(promptId, undefined);
        return { cancelled: true, via: 'cancel', reason: undefined };
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
    const { http, routes } = this.#deps;
    // Never retried: a second call could stop a job that started in between.
    await http.request({ method: 'POST', path: routes.interrupt, idempotent: false, options });
  }

  async #cancelInTwoCalls(promptId: string, options: RequestOptions | undefined): Promise<CancelResult> {
    const { http, routes, reader, hub } = this.#deps;
    const runtime = await reader.detect(options);
    let queue = await getQueue(this.#deps, options);
    if (has(queue.pending, promptId)) {
      const answer = await http.request({ method: 'POST', path: routes.queue, json: { delete: [promptId] }, schema: QueueDeleteSchema, idempotent: true, options });
      const deleted = answer?.deleted?.map(String);
      // The cloud names what it removed; a local runtime answers nothing, so look again.
      if (deleted?.includes(promptId) !== true) queue = await getQueue(this.#deps, options);
      if (deleted?.includes(promptId) === true || (!has(queue.pending, promptId) && !has(queue.running, promptId))) {
        reader.noteCancelled(promptId);
        hub.cancelled(promptId, false);
        return { cancelled: true, via: 'queue', reason: undefined };
      }
    }
    if (!has(queue.running, promptId)) return NOT_CANCELLED('ended_or_unknown');
    if (runtime === 'cloud') return NOT_CANCELLED('running_not_cancellable');
    // Only this job: a local runtime interrupts the job its body names if that one runs.
    await http.request({ method: 'POST', path: routes.interrupt, json: { prompt_id: promptId }, idempotent: true, options });
    reader.noteCancelled(promptId);
    hub.cancelled(promptId, true);
    return { cancelled: true, via: 'interrupt', reason: undefined };
  }
}

function has(items: JobQueue['pending'], promptId: string): boolean {
  return items.some((item) => item.promptId === promptId);
}

function fill(route: string, promptId: string): string {
  return route.replaceAll('{id}', encodeURIComponent(promptId));
}

