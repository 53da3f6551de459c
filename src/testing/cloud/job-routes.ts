import { isObject, readJson } from '../server/request.js';
import type { RouteModule, SimContext } from '../server/router.js';
import { sendEmpty, sendJson } from '../server/send.js';
import { cloudRouter } from './cloud-route.js';
import { listJobs } from './job-list.js';
import { jobDetail, queueEntry } from './job-views.js';
import type { CloudRunner, Job } from './runner.js';

/**
 * Dependencies of the job control routes.
 *
 * @example
 * mount(jobRoutes, { runtime: 'cloud', runner, users, cancelRoutes: true });
 */
export interface JobRouteDeps {
  runtime: 'cloud' | 'local';
  runner: CloudRunner;
  users: ReadonlyMap<string, string>;
  /** Serve `POST /api/jobs/{id}/cancel` (newest servers); `false` answers 404 like older ones. */
  cancelRoutes: boolean;
  /** Serve `GET /api/jobs` and `GET /api/jobs/{id}`; `false` answers 404 (and no cancel route), like ComfyUI 0.3.77. @default true */
  jobsRoutes?: boolean | undefined;
}

/**
 * Job control, listing and the queue, with the differences of each runtime
 * (docs/wire-protocol.md#cloud-job-control-listing-and-queue): the cloud's interrupt stops every
 * running job of the user and ignores a body, a local runtime's stops only the job its body names;
 * removing pending jobs answers `{deleted, cleared}` on the cloud and an empty 200 locally; a
 * pending job removed from a local queue never reaches history (404 afterwards).
 *
 * @example
 * createAreaServer({ ...common, area: 'cloud', routes: [mount(cloudRoutes, deps), mount(jobRoutes, deps)] });
 */
export const jobRoutes: RouteModule<JobRouteDeps> = (router, deps) => {
  const { runner, runtime } = deps;
  const local = runtime === 'local';
  const route = cloudRouter(router, deps);
  // A local runtime has one user and forgets a job removed from its queue before it ran.
  const visible = (job: Job, userId: string): boolean => (local ? !(job.status === 'cancelled' && job.startedAt === undefined) : job.userId === userId);
  const mine = (userId: string): Job[] => runner.all().filter((job) => visible(job, userId));

  // ComfyUI 0.3.77 has none of these routes (docs/wire-protocol.md#cloud-local-runtimes).
  if (deps.jobsRoutes !== false) {
    route('GET', '/jobs', ({ res, url }, userId) => {
      const { status, body } = listJobs(mine(userId), url.searchParams, runtime);
      sendJson(res, status, body);
    });
    route('GET', '/jobs/:id', (ctx, userId) => {
      const job = runner.get(ctx.params.id ?? '');
      if (job && !local && job.userId !== userId) return sendJson(ctx.res, 403, { message: 'Access denied: this job belongs to another user' });
      if (!job || !visible(job, userId)) return sendJson(ctx.res, 404, { message: 'Job not found' });
      return sendJson(ctx.res, 200, jobDetail(job, runtime));
    });
    if (deps.cancelRoutes) {
      route('POST', '/jobs/:id/cancel', (ctx, userId) => {
        const job = runner.get(ctx.params.id ?? '');
        // A finished, unknown or foreign job is not cancelled.
        const cancelled = !!job && visible(job, userId) && cancelOne(runner, job);
        sendJson(ctx.res, 200, { cancelled });
      });
    }
  }
  route('POST', '/interrupt', async ({ req, res }, userId) => {
    const body = await readJson(req).catch(() => undefined);
    // The cloud takes no body: every running job of the user stops.
    const promptId = !local ? undefined : isObject(body) && typeof body.prompt_id === 'string' ? body.prompt_id : undefined;
    runner.interrupt(userId, promptId);
    sendEmpty(res, 200);
  });
  route('GET', '/queue', ({ res }, userId) => {
    const queued = mine(userId);
    sendJson(res, 200, {
      queue_running: queued.filter((job) => job.status === 'in_progress').map((job) => queueEntry(job, runtime)),
      queue_pending: queued.filter((job) => job.status === 'pending').map((job) => queueEntry(job, runtime)),
    });
  });
  route('POST', '/queue', async ({ req, res }: SimContext, userId) => {
    const body = await readJson(req).catch(() => undefined);
    const cleared = isObject(body) && body.clear === true;
    const deleted = [
      ...(cleared ? runner.cancelPending(userId, 'all') : []),
      ...(isObject(body) && Array.isArray(body.delete) ? runner.cancelPending(userId, body.delete.map(String)) : []),
    ];
    if (local) return sendEmpty(res, 200);
    return sendJson(res, 200, { deleted, cleared });
  });
};

/** Dequeues a pending job or interrupts a running one; false for a job that has ended. */
function cancelOne(runner: CloudRunner, job: Job): boolean {
  if (job.status === 'pending') return runner.cancelPending(job.userId, [job.id]).length > 0;
  if (job.status === 'in_progress') return runner.interrupt(job.userId, job.id);
  return false;
}
