import { createHmac, timingSafeEqual } from 'node:crypto';
import { header, type SimContext } from './area-server.js';
import type { FileStore, StoredFile } from './file-store.js';
import { Router, sendBytes, sendJson } from './http-utils.js';
import { colorFor, encodePng, fakeMp4 } from './png.js';
import { imageStatus, videoState, type ProxyTask } from './proxy-routes.js';

/**
 * Dependencies of the second origin (signed cloud files and proxy results).
 *
 * @example
 * const files = filesOrigin({ store, tasks, now: Date.now, secret, ttlMs: 300_000, taskDurationMs: 1000, baseUrl: () => url });
 */
export interface FilesDeps {
  store: FileStore;
  tasks: Map<string, ProxyTask>;
  now: () => number;
  secret: string;
  ttlMs: number;
  taskDurationMs: number;
  baseUrl: () => string;
}

/**
 * The second origin: `GET /signed/view` (signed, expiring, no API key) and
 * `GET /results/{taskId}/{file}` (proxy results, no credentials).
 *
 * @example
 * const { router, signUrl } = filesOrigin(deps);
 * signUrl(file); // "http://127.0.0.1:4567/signed/view?filename=...&expires=...&sig=..."
 */
export function filesOrigin(deps: FilesDeps): { router: Router<SimContext>; signUrl: (file: StoredFile) => string } {
  const sign = (type: string, subfolder: string, filename: string, expires: string): string =>
    createHmac('sha256', deps.secret).update(`${type}\n${subfolder}\n${filename}\n${expires}`).digest('hex');
  const signUrl = (file: StoredFile): string => {
    const expires = String(Math.floor((deps.now() + deps.ttlMs) / 1000));
    const query = new URLSearchParams({ filename: file.name, subfolder: file.subfolder, type: file.type, expires });
    query.set('sig', sign(file.type, file.subfolder, file.name, expires));
    return `${deps.baseUrl()}/signed/view?${query.toString()}`;
  };
  const router = new Router<SimContext>();
  router.add('GET', '/signed/view', ({ req, res, url }) => {
    const q = url.searchParams;
    const [filename, subfolder, type, expires, sig] = ['filename', 'subfolder', 'type', 'expires', 'sig'].map((name) => q.get(name) ?? '');
    // Storage hosts refuse a second auth mechanism beside the signature (S3: "Only one auth mechanism allowed").
    if (header(req, 'authorization')) return sendJson(res, 400, { code: 'InvalidArgument', message: 'Only one auth mechanism allowed' });
    const expected = Buffer.from(sign(type ?? '', subfolder ?? '', filename ?? '', expires ?? ''));
    const given = Buffer.from(sig ?? '');
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
      return sendJson(res, 403, { code: 'SignatureDoesNotMatch', message: 'The request signature does not match' });
    }
    if (Number(expires) * 1000 < deps.now()) return sendJson(res, 403, { code: 'AccessDenied', message: 'Request has expired' });
    const file = deps.store.get(type ?? '', subfolder ?? '', filename ?? '');
    if (!file) return sendJson(res, 404, { code: 'NoSuchKey', message: 'The specified key does not exist.' });
    return sendBytes(res, 200, file.bytes(), file.contentType, { 'cache-control': 'private, max-age=300' });
  });
  router.add('GET', '/results/:taskId/:file', ({ res, params }) => {
    const task = deps.tasks.get(params.taskId ?? '');
    const now = deps.now();
    const done = task && (task.kind === 'image'
      ? imageStatus(task, now, deps.taskDurationMs) === 'COMPLETED'
      : videoState(task, now, deps.taskDurationMs) === 'success');
    if (!task || !done) return sendJson(res, 404, { code: 'NoSuchKey', message: 'The specified key does not exist.' });
    if (params.file === 'video.mp4' && task.kind === 'video') return sendBytes(res, 200, fakeMp4(), 'video/mp4');
    if (params.file === 'cover.png' && task.kind === 'video') return sendBytes(res, 200, encodePng(64, 36, colorFor(task.id)), 'image/png');
    if (params.file === '0.png' && task.kind === 'image') return sendBytes(res, 200, encodePng(256, 256, colorFor(task.id)), 'image/png');
    return sendJson(res, 404, { code: 'NoSuchKey', message: 'The specified key does not exist.' });
  });
  return { router, signUrl };
}
