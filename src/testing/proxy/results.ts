import { fakeMp4 } from '../files/mp4.js';
import { colorFor, encodePng } from '../files/png.js';
import type { RouteModule } from '../server/router.js';
import { sendBytes, sendJson } from '../server/send.js';
import { succeeded, type ProxyTasks } from './tasks.js';

/**
 * Dependencies of the proxy results, served on the files origin.
 *
 * @example
 * const deps: ProxyResultDeps = { tasks, now: Date.now, taskDurationMs: 1000 };
 */
export interface ProxyResultDeps {
  tasks: ProxyTasks;
  now: () => number;
  taskDurationMs: number;
}

const NO_SUCH_KEY = { code: 'NoSuchKey', message: 'The specified key does not exist.' };

/**
 * `GET /results/{taskId}/{0.png|video.mp4|cover.png}`: the result files of finished proxy tasks,
 * without credentials, mounted on the files origin beside its signed files.
 *
 * @example
 * createAreaServer({ ...common, area: 'files', routes: [mount(filesRoutes, files), mount(proxyResultRoutes, results)] });
 */
export const proxyResultRoutes: RouteModule<ProxyResultDeps> = (router, deps) => {
  router.add('GET', '/results/:taskId/:file', ({ res, params }) => {
    const task = deps.tasks.get(params.taskId ?? '');
    if (!task || !succeeded(task, deps.now(), deps.taskDurationMs)) return sendJson(res, 404, NO_SUCH_KEY);
    if (params.file === 'video.mp4' && task.kind === 'video') return sendBytes(res, 200, fakeMp4(), 'video/mp4');
    if (params.file === 'cover.png' && task.kind === 'video') return sendBytes(res, 200, encodePng(64, 36, colorFor(task.id)), 'image/png');
    if (params.file === '0.png' && task.kind === 'image') return sendBytes(res, 200, encodePng(256, 256, colorFor(task.id)), 'image/png');
    return sendJson(res, 404, NO_SUCH_KEY);
  });
};
