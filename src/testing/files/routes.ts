import { BodyTooLargeError, header, readBody } from '../server/request.js';
import type { RouteModule } from '../server/router.js';
import { sendBytes, sendJson } from '../server/send.js';
import type { UrlSigner } from './signed-urls.js';
import type { PackageStore } from './packages.js';
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
  packages: PackageStore;
}

const MAX_PACKAGE_BYTES = 256 * 1024 * 1024;

/**
 * The signed files of the second origin: `GET /signed/view` (signed, expiring, no API key), and
 * the registry's packages: `PUT /signed/upload` (signed, no credential) and `GET /packages/{key}`.
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
  router.add('PUT', '/signed/upload', async ({ req, res, url }) => {
    if (header(req, 'authorization') || header(req, 'x-api-key')) return sendJson(res, 400, { code: 'InvalidArgument', message: 'Only one auth mechanism allowed' });
    const check = deps.packages.check(url.searchParams);
    if (check === 'forged') return sendJson(res, 403, { code: 'SignatureDoesNotMatch', message: 'The request signature does not match' });
    if (check === 'expired') return sendJson(res, 403, { code: 'AccessDenied', message: 'Request has expired' });
    if (!(header(req, 'content-type') ?? '').startsWith('application/zip')) return sendJson(res, 400, { code: 'InvalidArgument', message: 'Content-Type must be application/zip' });
    try {
      deps.packages.put(url.searchParams.get('key') ?? '', new Uint8Array(await readBody(req, MAX_PACKAGE_BYTES)));
    } catch (error) {
      if (error instanceof BodyTooLargeError) return sendJson(res, 413, { code: 'EntityTooLarge', message: 'Your proposed upload exceeds the maximum allowed size' });
      throw error;
    }
    return sendJson(res, 200, {});
  });
  router.add('GET', '/packages/:key', ({ res, params }) => {
    const bytes = deps.packages.get(params.key ?? '');
    if (!bytes) return sendJson(res, 404, { code: 'NoSuchKey', message: 'The specified key does not exist.' });
    return sendBytes(res, 200, bytes, 'application/zip');
  });
};
