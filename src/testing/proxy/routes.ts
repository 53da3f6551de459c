import { randomUUID } from 'node:crypto';
import { bearerToken, header, isObject, readJson } from '../server/request.js';
import type { RouteModule, SimContext } from '../server/router.js';
import { sendEmpty, sendJson } from '../server/send.js';
import { imageStatus, videoState, type ProxyTask, type ProxyTasks } from './tasks.js';
import { validateImageBody, validateVideoBody, videoCredits } from './validation.js';

/**
 * Dependencies of the proxy routes.
 *
 * @example
 * mount(proxyRoutes, { tasks, now: Date.now, taskDurationMs: 1000, filesUrl: () => url, isAuthorized });
 */
export interface ProxyDeps {
  tasks: ProxyTasks;
  now: () => number;
  taskDurationMs: number;
  filesUrl: () => string;
  /** Accepts a Bearer token or the platform key as `X-API-Key`. */
  isAuthorized: (bearer: string | undefined, apiKey: string | undefined) => boolean;
}

const IMAGE_BASE = '/proxy/imagevendor/v1/ai';
const IMAGE_ENDPOINTS = ['image-relight', 'image-upscaler', 'image-style-transfer', 'skin-enhancer/creative', 'skin-enhancer/faithful'];
const VIDEO_ENDPOINTS = ['reference2video', 'extend', 'multiframe'];

/**
 * The media proxy's routes: eight submissions and their polling paths. Its results are served
 * on the files origin by {@link proxyResultRoutes}.
 *
 * @example
 * createAreaServer({ ...common, area: 'registry', routes: [mount(registryRoutes, registry), mount(proxyRoutes, proxy)] });
 */
export const proxyRoutes: RouteModule<ProxyDeps> = (router, deps) => {
  const guarded = (handler: (ctx: SimContext) => void | Promise<void>) => (ctx: SimContext) => {
    if (!deps.isAuthorized(bearerToken(ctx.req), header(ctx.req, 'x-api-key'))) {
      return sendJson(ctx.res, 401, { message: 'Unauthorized' });
    }
    return handler(ctx);
  };
  const readBody = async (ctx: SimContext): Promise<Record<string, unknown> | undefined> => {
    try {
      const body = await readJson(ctx.req);
      return isObject(body) ? body : undefined;
    } catch {
      return undefined;
    }
  };
  const create = (ctx: SimContext, kind: ProxyTask['kind'], endpoint: string, body: Record<string, unknown>): ProxyTask => {
    const probe = [body.prompt, typeof body.image === 'string' && /^https?:/i.test(body.image) ? body.image : ''];
    const task: ProxyTask = {
      id: randomUUID(), kind, endpoint, createdAt: deps.now(), body,
      fails: probe.some((value) => typeof value === 'string' && /fail/i.test(value)),
      faults: ctx.faults.forTask(),
      credits: kind === 'video' ? videoCredits(body) : 1,
    };
    deps.tasks.set(task.id, task);
    return task;
  };
  const imageAnswer = (ctx: SimContext, task: ProxyTask): void => {
    const faults = task.faults.settingsFor(ctx.faults);
    const status = imageStatus(task, deps.now(), deps.taskDurationMs);
    const inner = {
      task_id: task.id,
      [faults.taskStatusField]: status,
      generated: status === 'COMPLETED' ? [`${deps.filesUrl()}/results/${task.id}/0.png`] : [],
    };
    const topLevel = task.endpoint === 'image-style-transfer' && !faults.wrapStyleTransfer;
    sendJson(ctx.res, 200, topLevel ? inner : { data: inner });
  };
  const lookup = (ctx: SimContext, kind: ProxyTask['kind'], endpoints: string[]): ProxyTask | undefined => {
    const task = deps.tasks.get(ctx.params.taskId ?? '');
    if (!task || task.kind !== kind || !endpoints.includes(task.endpoint)) {
      sendEmpty(ctx.res, 404);
      return undefined;
    }
    if (task.faults.hidesPoll()) {
      sendEmpty(ctx.res, 404);
      return undefined;
    }
    return task;
  };

  for (const endpoint of IMAGE_ENDPOINTS) {
    router.add('POST', `${IMAGE_BASE}/${endpoint}`, guarded(async (ctx) => {
      const body = await readBody(ctx);
      if (!body) return sendJson(ctx.res, 400, { error: 'invalid_request', message: 'Body must be a JSON object' });
      const problems = validateImageBody(endpoint, body);
      if (problems.length > 0) return sendJson(ctx.res, 400, { error: 'invalid_request', message: problems.join('; ') });
      return imageAnswer(ctx, create(ctx, 'image', endpoint, body));
    }));
  }
  const polls: [string, string[]][] = [
    ['image-relight', ['image-relight']],
    ['image-upscaler', ['image-upscaler']],
    ['image-style-transfer', ['image-style-transfer']],
    ['skin-enhancer', ['skin-enhancer/creative', 'skin-enhancer/faithful']],
  ];
  for (const [path, endpoints] of polls) {
    router.add('GET', `${IMAGE_BASE}/${path}/:taskId`, guarded((ctx) => {
      const task = lookup(ctx, 'image', endpoints);
      if (task) imageAnswer(ctx, task);
    }));
  }

  for (const endpoint of VIDEO_ENDPOINTS) {
    router.add('POST', `/proxy/videovendor/${endpoint}`, guarded(async (ctx) => {
      const body = await readBody(ctx);
      if (!body) return sendJson(ctx.res, 400, { details: ['body must be a JSON object'], message: 'Invalid request' });
      const problems = validateVideoBody(endpoint, body);
      if (problems.length > 0) return sendJson(ctx.res, 400, { details: problems, message: 'Invalid request parameters' });
      const task = create(ctx, 'video', endpoint, body);
      const { payload: _payload, callback_url: _callback, ...echo } = body;
      return sendJson(ctx.res, 200, {
        ...echo,
        task_id: task.id,
        state: videoState(task, deps.now(), deps.taskDurationMs),
        credits: task.credits,
        created_at: new Date(task.createdAt).toISOString(),
      });
    }));
  }
  router.add('GET', '/proxy/videovendor/tasks/:taskId/creations', guarded((ctx) => {
    const task = lookup(ctx, 'video', VIDEO_ENDPOINTS);
    if (!task) return;
    const state = videoState(task, deps.now(), deps.taskDurationMs);
    const age = deps.now() - task.createdAt;
    const base = `${deps.filesUrl()}/results/${task.id}`;
    sendJson(ctx.res, 200, {
      id: task.id,
      state,
      err_code: state === 'failed' ? 'SimulatedGenerationFailure' : '',
      credits: task.credits,
      progress: Math.min(100, Math.max(0, Math.round((age / deps.taskDurationMs) * 100))),
      creations: state === 'success' ? [{ id: `${task.id}-0`, url: `${base}/video.mp4`, cover_url: `${base}/cover.png` }] : [],
    });
  }));
};
