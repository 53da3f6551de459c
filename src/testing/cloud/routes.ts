import { randomUUID } from 'node:crypto';
import type { FileStore } from '../files/store.js';
import type { UrlSigner } from '../files/signed-urls.js';
import { isObject, readJson } from '../server/request.js';
import type { RouteModule, SimContext } from '../server/router.js';
import { sendBytes, sendEmpty, sendJson } from '../server/send.js';
import { cloudRouter } from './cloud-route.js';
import { historyEntry, rawJobStatus } from './job-views.js';
import { checkNode } from './node-behaviour.js';
import type { NodeDefinition } from './nodes.js';
import { validatePrompt } from './prompt-validation.js';
import type { CloudRunner } from './runner.js';
import type { SocketHub } from './socket-hub.js';
import { socketUpgrade } from './socket-upgrade.js';
import { uploadHandler } from './upload.js';

/**
 * Dependencies of the cloud routes.
 *
 * @example
 * mount(cloudRoutes, { runtime: 'cloud', runner, hub, store, defs, users, signer });
 */
export interface CloudDeps {
  runtime: 'cloud' | 'local';
  runner: CloudRunner;
  hub: SocketHub;
  store: FileStore;
  defs: () => Record<string, NodeDefinition>;
  /** Maps an API key to its user id. */
  users: ReadonlyMap<string, string>;
  /** Signs the short-lived URLs of files on the files origin. */
  signer: UrlSigner;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The cloud's routes and its `/ws` upgrade. Every HTTP route lives under `/api`; a local runtime
 * also answers without the prefix (docs/wire-protocol.md#cloud-local-runtimes).
 *
 * @example
 * createAreaServer({ ...common, area: 'cloud', routes: [mount(cloudRoutes, deps)] });
 */
export const cloudRoutes: RouteModule<CloudDeps> = (router, deps) => {
  const local = deps.runtime === 'local';
  const route = cloudRouter(router, deps);

  router.upgrade('/ws', socketUpgrade(deps));
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
    return sendJson(ctx.res, 200, ctx.faults.settings.rawStatusVocabulary ? rawJobStatus(job) : { status: job.status });
  });
  const history = (ctx: SimContext, userId: string): void => {
    const job = deps.runner.get(ctx.params.id ?? '');
    const done = job && job.startedAt !== undefined && job.endedAt !== undefined && (local || job.userId === userId);
    sendJson(ctx.res, 200, done ? { [job.id]: historyEntry(job) } : {});
  };
  if (local) {
    // The whole history, oldest first: `max_items` keeps the newest N unless `offset` is given
    // (ComfyUI's get_history).
    route('GET', '/history', ({ res, url }) => {
      const done = deps.runner.all().filter((job) => job.startedAt !== undefined && job.endedAt !== undefined);
      done.sort((a, b) => (a.endedAt ?? 0) - (b.endedAt ?? 0) || a.number - b.number);
      const max = Number.parseInt(url.searchParams.get('max_items') ?? '', 10);
      const given = Number.parseInt(url.searchParams.get('offset') ?? '', 10);
      const limit = Number.isInteger(max) ? max : undefined;
      const offset = Number.isInteger(given) && given >= 0 ? given : limit !== undefined ? Math.max(0, done.length - limit) : 0;
      const page = done.slice(offset, limit === undefined ? undefined : offset + Math.max(1, limit));
      sendJson(res, 200, Object.fromEntries(page.map((job) => [job.id, historyEntry(job)])));
    });
  }
  route('GET', '/history/:id', history);
  route('GET', '/history_v2/:id', history);

  route('GET', '/view', ({ res, url }) => {
    const filename = url.searchParams.get('filename');
    if (!filename) return sendJson(res, 400, { message: 'filename is required' });
    const file = deps.store.get(url.searchParams.get('type') ?? 'output', url.searchParams.get('subfolder') ?? '', filename);
    if (!file) return sendJson(res, 404, { message: 'File not found' });
    // The cloud redirects to a signed URL on another host; a local runtime answers the bytes.
    // See docs/wire-protocol.md#redirects-and-credentials.
    if (!local) return sendEmpty(res, 302, { location: deps.signer.sign(file) });
    return sendBytes(res, 200, file.bytes(), file.contentType, { 'content-disposition': `filename="${file.name}"` });
  });
};

async function submit(deps: CloudDeps, ctx: SimContext, userId: string): Promise<void> {
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
  // Only a local runtime takes a client-chosen id; the cloud ignores the field and assigns its own
  // (docs/wire-protocol.md#cloud-local-runtimes).
  const requested = deps.runtime === 'local' ? fields.prompt_id : undefined;
  if (requested !== undefined && (typeof requested !== 'string' || !UUID.test(requested))) {
    return reject(400, 'invalid_prompt_id', 'prompt_id must be a lowercase UUID');
  }
  if (typeof requested === 'string' && deps.runner.get(requested)) {
    return reject(409, 'invalid_prompt_id', `Prompt id ${requested} already exists`);
  }
  const defs = deps.defs();
  const validation = validatePrompt(fields.prompt, defs, (node) => checkNode(node, deps.store));
  if (!validation.ok) return sendJson(res, 400, validation.body);
  const job = deps.runner.create({
    id: typeof requested === 'string' ? requested : randomUUID(),
    userId,
    clientId: typeof fields.client_id === 'string' ? fields.client_id : undefined,
    prompt: validation.prompt,
    outputNodes: validation.outputs,
    extraData: isObject(fields.extra_data) ? fields.extra_data : {},
    faults: ctx.faults.forRun(),
  });
  await deps.runner.enqueue(job);
  sendJson(res, 200, { prompt_id: job.id, number: job.number, node_errors: validation.nodeErrors });
}
