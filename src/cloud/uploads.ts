import { baseName, Checker, mimeTypeOf, toBlob, type FileInput, type HttpClient, type RequestOptions } from '../core/index.js';
import { streamForm, streamsUploads } from './multipart.js';
import { UploadSchema } from './schemas.js';
import type { FileRef, UploadResult } from './types.js';

/**
 * Options of `cloud.uploadImage()`.
 *
 * @example
 * ```ts
 * await cloud.uploadImage(bytes, { filename: 'photo.png', type: 'temp', overwrite: true });
 * ```
 */
export interface UploadImageOptions extends RequestOptions {
  /**
   * `input` for workflow inputs, `temp` for temporary files.
   * @default 'input'
   */
  type?: 'input' | 'temp' | undefined;
  /** Replace a file of the same name instead of letting the server rename it. */
  overwrite?: boolean | undefined;
  /**
   * File name sent with the upload.
   * @default the path's base name, the `File`'s name, or `upload.png`
   */
  filename?: string | undefined;
  /** Subfolder (the cloud accepts and ignores it: its namespace is flat). */
  subfolder?: string | undefined;
}

/**
 * Options of `cloud.uploadMask()`.
 *
 * @example
 * ```ts
 * const image = await cloud.uploadImage('./photo.png');
 * await cloud.uploadMask('./mask.png', { originalRef: image });
 * ```
 */
export interface UploadMaskOptions extends UploadImageOptions {
  /** The image the mask applies to: an upload result or a file reference. */
  originalRef: UploadResult | FileRef;
}

function fileName(input: FileInput, explicit: string | undefined): string {
  if (explicit) return explicit;
  if (typeof input === 'string') return baseName(input);
  if (typeof File !== 'undefined' && input instanceof File && input.name) return input.name;
  if (input instanceof Blob && input.type === 'image/jpeg') return 'upload.jpg';
  return 'upload.png';
}

/**
 * Uploads an image or mask as multipart form data. The file is a `Blob` (a path is opened with
 * `fs.openAsBlob` and streamed from disk); the built-in `FormData` sets its own content type.
 *
 * @example
 * ```ts
 * const { name } = await upload(http, 'image', './photo.png', { overwrite: true });
 * ```
 */
export async function upload(http: HttpClient, kind: 'image' | 'mask', input: FileInput, options: UploadMaskOptions | UploadImageOptions = {}): Promise<UploadResult> {
  const { type, overwrite, filename, subfolder, originalRef, ...request } = options as UploadMaskOptions;
  const check = new Checker();
  check.required('input', input);
  check.oneOf('options.type', type, ['input', 'temp']);
  check.boolean('options.overwrite', overwrite);
  check.string('options.filename', filename);
  if (kind === 'mask') check.required('options.originalRef', originalRef);
  check.throwIfInvalid(`cloud.upload${kind === 'image' ? 'Image' : 'Mask'}()`);
  const name = fileName(input, filename);
  let blob = await toBlob(input, 'input');
  if (!blob.type && mimeTypeOf(name)) blob = blob.slice(0, blob.size, mimeTypeOf(name));
  const form = (file: Blob) => formOf(file, name, kind, type, overwrite, subfolder, originalRef);
  // A file path is streamed from disk in small pieces (multipart.ts): the peak memory of a large
  // upload stays far below the file's size. Other inputs are in memory already.
  const streamed = typeof input === 'string' && streamsUploads() ? await streamForm(form(blob), form(new Blob([], { type: blob.type })), blob.size) : undefined;
  // streamBody: fetch would otherwise tee the form to replay it on a redirect, holding the whole file in memory.
  const answer = await http.request({
    method: 'POST',
    path: `/api/upload/${kind}`,
    body: streamed?.body ?? form(blob),
    streamBody: true,
    schema: UploadSchema,
    options: streamed ? { ...request, headers: { ...request.headers, ...streamed.headers } } : request,
  });
  return { name: answer.name, subfolder: answer.subfolder ?? '', type: answer.type ?? undefined };
}

/** The upload's form: `image`, `type`, `overwrite`, `subfolder`, and for a mask `original_ref`. */
function formOf(blob: Blob, name: string, kind: 'image' | 'mask', type: string | undefined, overwrite: boolean | undefined, subfolder: string | undefined, originalRef: UploadResult | FileRef | undefined): FormData {
  const form = new FormData();
  form.append('image', blob, name);
  form.append('type', type ?? 'input');
  if (overwrite !== undefined) form.append('overwrite', String(overwrite));
  if (subfolder !== undefined) form.append('subfolder', subfolder);
  if (kind === 'mask' && originalRef) {
    const ref = 'name' in originalRef ? { filename: originalRef.name, subfolder: originalRef.subfolder, type: originalRef.type ?? 'input' } : { filename: originalRef.filename, subfolder: originalRef.subfolder ?? '', type: originalRef.type ?? 'input' };
    // A JSON string, not nested form fields (wire-facts "Outputs and uploads").
    form.append('original_ref', JSON.stringify(ref));
  }
  return form;
}
