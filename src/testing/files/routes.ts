import { header } from '../server/request.js';
import type { RouteModule } from '../server/router.js';
import { sendBytes, sendJson } from '../server/send.js';
import type { UrlSigner } from './signed-urls.js';
import type { FileStore } from './store.js';

/**
 * Dependencies of the files origin's own routes.
 *
 * @example
 * const deps: FilesDeps = { store, signer };
 */
export interface FilesDeps {
  store: FileStore;
  signer: UrlSigner;
}

/**
 * The signed files of the second origin: `GET /signed/view` (signed, expiring, no API key).
 * The proxy's results are mounted on the same server by the proxy module.
 *
 * @example
 * createAreaServer({ ...common, area: 'files', routes: [mount(filesRoutes, { store, signer })] });
 */
export const filesRoutes: RouteModule<FilesDeps> = (router, deps) => {
  router.add('GET', '/signed/view', ({ req, res, url }) => {
    // Storage hosts refuse a second auth mechanism beside the signature (S3: "Only one auth mechanism allowed").
    if (header(req, 'authorization')) return sendJson(res, 400, { code: 'InvalidArgument', message: 'Only one auth mechanism allowed' });
    const check = deps.signer.check(url.searchParams);
    if (check === 'forged') return sendJson(res, 403, { code: 'SignatureDoesNotMatch', message: 'The request signature does not match' });
    if (check === 'expired') return sendJson(res, 403, { code: 'AccessDenied', message: 'Request has expired' });
    const q = url.searchParams;
    const file = deps.store.get(q.get('type') ?? '', q.get('subfolder') ?? '', q.get('filename') ?? '');
    if (!file) return sendJson(res, 404, { code: 'NoSuchKey', message: 'The specified key does not exist.' });
    return sendBytes(res, 200, file.bytes(), file.contentType, { 'cache-control': 'private, max-age=300' });
  });
};
