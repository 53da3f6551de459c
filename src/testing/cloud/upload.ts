import { pngSize } from '../files/png.js';
import type { FileStore, FolderType } from '../files/store.js';
import { BodyTooLargeError, isObject, readBody } from '../server/request.js';
import type { SimContext } from '../server/router.js';
import { sendJson } from '../server/send.js';

/**
 * Upload limits per runtime: the cloud answers 400 beyond 50 MB, 16384 px per edge or 64
 * megapixels; a local runtime answers 413 with a plain-text body beyond 100 MB. See
 * docs/wire-protocol.md#cloud-outputs-files-and-uploads.
 *
 * @example
 * UPLOAD_LIMITS.cloud.maxBytes; // 52428800
 */
export const UPLOAD_LIMITS = Object.freeze({
  cloud: { maxBytes: 50 * 1024 * 1024, maxEdge: 16384, maxPixels: 64 * 1024 * 1024 },
  local: { maxBytes: 100 * 1024 * 1024 },
});

const FOLDER_TYPES = new Set<string>(['input', 'temp', 'output']);

/**
 * Handles `POST /api/upload/image` and `/api/upload/mask` (multipart form).
 *
 * @example
 * router.add('POST', '/api/upload/image', uploadHandler(store, 'cloud', false));
 */
export function uploadHandler(store: FileStore, runtime: 'cloud' | 'local', mask: boolean) {
  return async (ctx: SimContext): Promise<void> => {
    const { req, res } = ctx;
    const limit = runtime === 'cloud' ? UPLOAD_LIMITS.cloud.maxBytes : UPLOAD_LIMITS.local.maxBytes;
    const tooLarge = (): void => {
      if (runtime === 'cloud') {
        sendJson(res, 400, { error: 'file_too_large', message: `File exceeds ${limit} bytes` });
      } else {
        res.writeHead(413, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
        res.end(`Maximum request body size ${limit} exceeded, actual body size ${req.headers['content-length'] ?? 'unknown'}`);
      }
    };
    if (Number(req.headers['content-length'] ?? 0) > limit + 64 * 1024) return tooLarge();
    let form: FormData;
    try {
      const body = await readBody(req, limit + 64 * 1024);
      form = await new Response(Uint8Array.from(body), { headers: { 'content-type': req.headers['content-type'] ?? '' } }).formData();
    } catch (error) {
      if (error instanceof BodyTooLargeError) return tooLarge();
      return sendJson(res, 400, { error: 'invalid_form', message: 'Expected a multipart/form-data body' });
    }
    const image = form.get('image');
    if (!(image instanceof Blob)) return sendJson(res, 400, { error: 'missing_image', message: 'The form field "image" must be a file' });
    const rawName = image instanceof File ? image.name : '';
    const name = rawName.split(/[\\/]/).pop() ?? '';
    if (!name || name === '.' || name === '..') return sendJson(res, 400, { error: 'invalid_filename', message: 'The uploaded file needs a file name' });
    const type = String(form.get('type') ?? 'input');
    if (!FOLDER_TYPES.has(type)) return sendJson(res, 400, { error: 'invalid_type', message: `Unknown folder type: ${type}` });
    if (mask) {
      // original_ref is a JSON string, not nested form fields (docs/wire-protocol.md#cloud-outputs-files-and-uploads).
      const ref = form.get('original_ref');
      let parsed: unknown;
      try {
        parsed = typeof ref === 'string' ? JSON.parse(ref) : undefined;
      } catch {
        parsed = undefined;
      }
      if (!isObject(parsed) || typeof parsed.filename !== 'string') {
        return sendJson(res, 400, { error: 'invalid_original_ref', message: 'original_ref must be a JSON object string with filename, subfolder and type' });
      }
    }
    const bytes = new Uint8Array(await image.arrayBuffer());
    if (bytes.byteLength > limit) return tooLarge();
    const size = pngSize(bytes);
    if (runtime === 'cloud' && size) {
      const { maxEdge, maxPixels } = UPLOAD_LIMITS.cloud;
      if (size.width > maxEdge || size.height > maxEdge || size.width * size.height > maxPixels) {
        return sendJson(res, 400, { error: 'image_too_large', message: `Image ${size.width}x${size.height} exceeds ${maxEdge} px per edge or ${maxPixels} pixels` });
      }
    }
    const overwrite = String(form.get('overwrite') ?? '').toLowerCase();
    const stored = store.upload(type as FolderType, name, bytes, image.type || 'application/octet-stream', overwrite === 'true' || overwrite === '1');
    sendJson(res, 200, { name: stored.name, subfolder: stored.subfolder, type: stored.type });
  };
}
