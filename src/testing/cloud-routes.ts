import { randomUUID } from 'node:crypto';
import { header, type SimContext } from './area-server.js';
import type { NodeDefinition } from './cloud-nodes.js';
import type { CloudRunner, Job } from './cloud-runner.js';
import type { FileStore, StoredFile } from './file-store.js';
import { isObject, readJson, Router, sendBytes, sendEmpty, sendJson } from './http-utils.js';
import { validatePrompt } from './prompt-validation.js';
import { uploadHandler } from './upload-route.js';

/**
 * Dependencies of the cloud (Area A) routes.
 *
 * @example
 * const router = cloudRouter({ runtime: 'cloud', runner, store, defs, users, signUrl });
 */
export interface CloudRouteDeps {
  runtime: 'cloud' | 'local';
  runner: CloudRunner;
  store: FileStore;
  defs: () => Record<string, NodeDefinition>;
  /** Maps an API key to its user id. */
  users: ReadonlyMap<string, string>;
  /** Builds a short-lived signed URL of a file on the files origin. */
  signUrl: (file: StoredFile) => string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Raw internal states some deployments answer instead of the documented vocabulary (wire facts). */
const RAW_STATUS: Record<Job['status'], string> = {
  pending: 'submitted',
  in_progress: 'executing',
  completed: 'success',
  failed: 'error',
  cancelled: 'cancelled',
};

/**
 * The user id local runtimes run everything as (they have no authentication).
 *
 * @example
 * job.userId === LOCAL_USER; // in local mode
 */
export const LOCAL_USER = 'local-user';

/**
 * Builds the router of Area A; every route lives under `/api`, and a local runtime also answers
 * without the prefix.
 *
 * @example
 * createAreaServer({ area: 'cloud', router: cloudRouter(deps), ... });
 */
export function cloudRouter(deps: CloudRouteDeps): Router<SimContext> {
  const router = new Router<SimContext>();
  const local = deps.runtime === 'local';
  const authed = (handler: (ctx: SimContext, userId: string) => void | Promise<void>) => (ctx: SimContext) => {
    if (local) return handler(ctx, LOCAL_USER);
    const userId = deps.users.get(header(ctx.req, 'x-api-key') ?? '');
    if (!userId) {
      sendJson(ctx.res, 401, { message: 'Invalid or missing API key' });
      return undefined;
    }
    return handler(ctx, userId);
  };
  const route = (method: string, path: string, handler: (ctx: SimContext, userId: string) => void | Promise<void>): void => {
    router.add(method, `/api${path}`, authed(handler));
    if (local) router.add(method, path, authed(handler));
  };
  const ownJob = (ctx: SimContext, userId: string): Job | undefined => {
    const job = deps.runner.get(ctx.params.id ?? '');
    if (!job || (job.userId !== userId && !local)) {
      sendJson(ctx.res, 404, { message: 'Job not found' });
      return undefined;
    }
    return job;
  };

  route('GET', '/object_info', ({ res }) => sendJson(res, 200, deps.defs()));
  route('GET', '/object_info/:nodeClass', ({ res, params }) => {
    const def = deps.defs()[params.nodeClass ?? ''];
    sendJson(res, 200, def ? { [params.nodeClass ?? '']: def } : {});
  });
  route('POST', '/upload/image', uploadHandler(deps.store, deps.runtime, false));
  route('POST', '/upload/mask', uploadHandler(deps.store, deps.runtime, true));
  route('GET', '/prompt', ({ res }) => sendJson(res, 200, { exec_info: { queue_remaining: deps.runner.queueRemaining() } }));
  route('POST', '/prompt', (ctx, userId) => submit(deps, ctx, userId));

  route('GET', '/job/:id/status', (ctx, userId) => {
    const job = deps.runner.get(ctx.params.id ?? '');
    if (local || !job) return sendJson(ctx.res, 404, { message: 'Job not found' });
    if (job.userId !== userId) return sendJson(ctx.res, 403, { message: 'Access denied: this job belongs to another user' });
    if (!ctx.faults.rawStatusVocabulary) return sendJson(ctx.res, 200, { status: job.status });
    return sendJson(ctx.res, 200, {
      id: job.id,
      status: RAW_STATUS[job.status],
      created_at: new Date(job.createdAt).toISOString(),
      updated_at: new Date(job.updatedAt).toISOString(),
      error_message: job.errorMessage ?? null,
    });
  });
  route('GET', '/jobs/:id', (ctx, userId) => {
    const job = ownJob(ctx, userId);
    if (job) sendJson(ctx.res, 200, jobDetail(job));
  });
  const history = (ctx: SimContext, userId: string): void => {
    const job = deps.runner.get(ctx.params.id ?? '');
    const done = job && job.startedAt !== undefined && job.endedAt !== undefined && (local || job.userId === userId);
    sendJson(ctx.res, 200, done ? { [job.id]: historyEntry(job) } : {});
  };
  route('GET', '/history/:id', history);
  route('GET', '/history_v2/:id', history);

  route('GET', '/view', ({ res, url }) => {
    const filename = url.searchParams.get('filename');
    if (!filename) return sendJson(res, 400, { message: 'filename is required' });
    const file = deps.store.get(url.searchParams.get('type') ?? 'output', url.searchParams.get('subfolder') ?? '', filename);
    if (!file) return sendJson(res, 404, { message: 'File not found' });
    // Wire facts: the cloud redirects to a signed URL on another host; a local runtime answers the bytes.
    if (!local) return sendEmpty(res, 302, { location: deps.signUrl(file) });
    return sendBytes(res, 200, file.bytes(), file.contentType, { 'content-disposition': `filename="${file.name}"` });
  });

  route('POST', '/interrupt', async ({ req, res }, userId) => {
    const body = await readJson(req).catch(() => undefined);
    const promptId = isObject(body) && typeof body.prompt_id === 'string' ? body.prompt_id : undefined;
    deps.runner.interrupt(userId, promptId);
    sendEmpty(res, 200);
  });
  route('GET', '/queue', ({ res }, userId) => {
    const mine = deps.runner.all().filter((job) => local || job.userId === userId);
    const entry = (job: Job): unknown[] => [job.number, job.id, job.prompt, publicExtraData(job), job.outputNodes];
    sendJson(res, 200, {
      queue_running: mine.filter((job) => job.status === 'in_progress').map(entry),
      queue_pending: mine.filter((job) => job.status === 'pending').map(entry),
    });
  });
  route('POST', '/queue', async ({ req, res }, userId) => {
    const body = await readJson(req).catch(() => undefined);
    if (isObject(body) && body.clear === true) deps.runner.cancelPending(userId, 'all');
    if (isObject(body) && Array.isArray(body.delete)) deps.runner.cancelPending(userId, body.delete.map(String));
    sendEmpty(res, 200);
  });
  return router;
}

async function submit(deps: CloudRouteDeps, ctx: SimContext, userId: string): Promise<void> {
  const { res } = ctx;
  const reject = (status: number, type: string, message: string): void =>
    sendJson(res, status, { error: { type, message, details: '', extra_info: {} }, node_errors: {} });
  let body: unknown;
  try {
    body = await readJson(ctx.req);
  } catch {
    return reject(400, 'invalid_prompt', 'Request body is not valid JSON');
  }
  const fields = isObject(body) ? body : {};
  const requested = fields.prompt_id;
  if (requested !== undefined && (typeof requested !== 'string' || !UUID.test(requested))) {
    return reject(400, 'invalid_prompt_id', 'prompt_id must be a lowercase UUID');
  }
  if (typeof requested === 'string' && deps.runner.get(requested)) {
    return reject(409, 'invalid_prompt_id', `Prompt id ${requested} already exists`);
  }
  const defs = deps.defs();
  const validation = validatePrompt(fields.prompt, defs);
  if (!validation.ok) return sendJson(res, 400, validation.body);
  const job = deps.runner.create({
    id: typeof requested === 'string' ? requested : randomUUID(),
    userId,
    clientId: typeof fields.client_id === 'string' ? fields.client_id : undefined,
    prompt: validation.prompt,
    outputNodes: validation.outputs,
    extraData: isObject(fields.extra_data) ? fields.extra_data : {},
    faults: ctx.faults,
  });
  await deps.runner.enqueue(job);
  sendJson(res, 200, { prompt_id: job.id, number: job.number, node_errors: validation.nodeErrors });
}

function jobDetail(job: Job): Record<string, unknown> {
  const images = Object.values(job.outputs).flatMap((ui) => (isObject(ui) && Array.isArray(ui.images) ? ui.images : []));
  return {
    id: job.id,
    status: job.status,
    priority: job.number,
    create_time: job.createdAt,
    execution_start_time: job.startedAt ?? null,
    execution_end_time: job.endedAt ?? null,
    execution_error: job.status === 'failed' ? { exception_message: job.errorMessage ?? '' } : null,
    outputs_count: images.length,
    preview_output: images[0] ?? null,
    outputs: job.outputs,
    workflow: { prompt: job.prompt, extra_data: publicExtraData(job) },
  };
}

function historyEntry(job: Job): Record<string, unknown> {
  return {
    prompt: [job.number, job.id, job.prompt, publicExtraData(job), job.outputNodes],
    outputs: job.outputs,
    status: { status_str: job.status === 'completed' ? 'success' : 'error', completed: job.status === 'completed', messages: job.messages },
    meta: Object.fromEntries(Object.keys(job.outputs).map((id) => [id, { node_id: id, display_node: id }])),
  };
}

/** Extra data as it is echoed back: the runtime strips the partner credentials from history. */
function publicExtraData(job: Job): Record<string, unknown> {
  const { api_key_platform_org: _key, auth_token_platform_org: _token, ...rest } = job.extraData;
  return rest;
}
