import { baseName, buildUrl, Checker, checkOptions, GraphcloudError, isPlainObject, mimeTypeOf, REQUEST_RULES, rule, toBlob, withFile, type FileInput, type HttpClient, type OptionRules, type RequestOptions, type Rule } from '../core/index.js';
import { UploadSchema, type RelayTokens } from './shared/wire.js';
import type { FileRef, UploadResult } from './shared/types.js';
import type { OutputsSource, SavedOutput, SaveOutputsOptions } from './save-outputs.js';

/**
 * Options of `cloud.files.upload()`.
 *
 * @example
 * ```ts
 * await cloud.files.upload(bytes, { filename: 'photo.png', type: 'temp', overwrite: true });
 * ```
 */
export interface UploadOptions extends RequestOptions {
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
 * Options of `cloud.files.uploadMask()`.
 *
 * @example
 * ```ts
 * const image = await cloud.files.upload('./photo.png');
 * await cloud.files.uploadMask('./mask.png', { originalRef: image });
 * ```
 */
export interface UploadMaskOptions extends UploadOptions {
  /** The image the mask applies to: an upload result or a file reference. */
  originalRef: UploadResult | FileRef;
}

/**
 * Options of `cloud.files.get()` and `getResponse()`.
 *
 * @example
 * ```ts
 * const png = await cloud.files.get(ref, { promptId: result.promptId, timeout: 30_000 });
 * ```
 */
export interface GetFileOptions extends RequestOptions {
  /** The job that made the file: through a relay, its token opens the file (see docs/browser.md). */
  promptId?: string | undefined;
}

const promptIdRule: Rule = (check, path, value) => {
  if (value !== undefined) check.id(path, value);
};
const VIEW_RULES: OptionRules = { ...REQUEST_RULES, promptId: promptIdRule };
const UPLOAD_RULES: OptionRules = { ...REQUEST_RULES, type: rule.oneOf(['input', 'temp']), overwrite: rule.boolean, filename: rule.string, subfolder: (check, path, value) => check.string(path, value, { allowEmpty: true }) };
const SAVE_RULES: OptionRules = { ...REQUEST_RULES, overwrite: rule.boolean };
const MASK_RULES: OptionRules = {
  ...UPLOAD_RULES,
  originalRef: (check, path, value) => {
    if (!isPlainObject(value)) return check.fail(path, 'an upload result {name, subfolder} or a file reference {filename, subfolder?, type?}', value);
    if (typeof value.name !== 'string' && typeof value.filename !== 'string') check.fail(`${path}.name`, 'the file name (name or filename)', value.name ?? value.filename);
  },
};

/**
 * Input and output files of the cloud: `cloud.files`.
 *
 * @example
 * ```ts
 * const { name } = await cloud.files.upload('./photo.png');
 * const png = await cloud.files.get(result.outputs['9'].images[0]);
 * ```
 */
export class FilesResource {
  readonly #http: HttpClient;
  readonly #tokens: RelayTokens;

  /** @internal Built by `CloudClient` (use `cloud.files`). */
  constructor(http: HttpClient, tokens: RelayTokens) {
    this.#http = http;
    this.#tokens = tokens;
  }

  /**
   * Uploads an input image (`POST /api/upload/image`); use the returned `name` in the workflow
   * (the server may rename or deduplicate). A file path is streamed from disk, never read whole.
   *
   * @throws `ValidationError` for a bad argument, before anything is sent.
   * @example
   * ```ts
   * const { name } = await cloud.files.upload('./photo.png');
   * ```
   */
  async upload(input: FileInput, options?: UploadOptions): Promise<UploadResult> {
    return this.#upload('image', input, options, UPLOAD_RULES, 'cloud.files.upload()');
  }

  /**
   * Uploads a mask for an uploaded image (`POST /api/upload/mask`, `original_ref` as JSON).
   *
   * @example
   * ```ts
   * const mask = await cloud.files.uploadMask('./mask.png', { originalRef: await cloud.files.upload('./photo.png') });
   * ```
   */
  async uploadMask(input: FileInput, options: UploadMaskOptions): Promise<UploadResult> {
    return this.#upload('mask', input, options, MASK_RULES, 'cloud.files.uploadMask()');
  }

  /**
   * An output file's bytes (`GET /api/view`); the cloud's `302` to a signed URL on another host
   * is followed without the API key. Through a relay, pass the job's `promptId`.
   *
   * @example
   * ```ts
   * const png = await cloud.files.get(result.outputs['9'].images[0], { promptId: result.promptId });
   * ```
   */
  async get(ref: FileRef, options?: GetFileOptions): Promise<Uint8Array<ArrayBuffer>> {
    const response = await this.#view(ref, options, 'cloud.files.get()');
    return new Uint8Array(await response.arrayBuffer());
  }

  /**
   * An output file as an unread `Response` (stream it with `response.body`).
   *
   * @example
   * ```ts
   * const response = await cloud.files.getResponse(ref);
   * await pipeline(Readable.fromWeb(response.body!), createWriteStream('out.mp4'));
   * ```
   */
  async getResponse(ref: FileRef, options?: GetFileOptions): Promise<Response> {
    return this.#view(ref, options, 'cloud.files.getResponse()');
  }

  /**
   * A URL of an output file for an `<img>` or `<video>` of a page: through a relay
   * (`baseUrl: '/api/graphcloud'`), it carries the job's token, so the browser gets the bytes with
   * no key. Straight to the cloud it would need the key, which a page must not have.
   *
   * @throws `ValidationError` for a bad reference or option.
   * @example
   * ```ts
   * img.src = cloud.files.url(result.outputs['9'].images[0], { promptId: result.promptId });
   * ```
   */
  url(ref: FileRef, options?: { promptId?: string | undefined }): string {
    checkView(ref, options, { promptId: promptIdRule }, 'cloud.files.url()');
    const token = options?.promptId === undefined ? undefined : this.#tokens.get(options.promptId);
    return buildUrl(this.#http.baseUrl, '/api/view', { ...viewQuery(ref), job: token }).toString();
  }

  /**
   * Saves every output file of a run (its result, a job from `cloud.jobs.get()`, or any
   * `{ outputs }`) into a folder, in Node, Bun or Deno: each file streamed to disk, named after the
   * server's file name made safe (`name (2).png` when two share one), never overwriting a file
   * unless `overwrite` is set. Bytes already in `result.files` (`download: true`) are written
   * without downloading again. A failed download leaves no partial file.
   *
   * @throws `ValidationError` outside Node, Bun or Deno, or a name already taken in `dir` (before anything is downloaded).
   * @example
   * ```ts
   * const saved = await cloud.files.saveOutputs(await cloud.runWorkflow(workflow), './out');
   * for (const file of saved) console.log(file.path, file.bytes);
   * ```
   */
  async saveOutputs(source: OutputsSource, dir: string, options?: SaveOutputsOptions): Promise<SavedOutput[]> {
    const check = new Checker();
    if (!isPlainObject(source) || !isPlainObject(source.outputs)) check.fail('source', 'a run result, a job from cloud.jobs.get(), or { outputs }', source);
    check.string('dir', dir, { required: true });
    checkOptions(check, 'options', options, SAVE_RULES);
    check.throwIfInvalid('cloud.files.saveOutputs()');
    this.#http.throwIfClosed();
    // A run result names its job: through a relay, the job's token opens its files.
    const named = (source as OutputsSource & { promptId?: unknown }).promptId;
    const promptId = typeof named === 'string' ? named : undefined;
    // Node, Bun and Deno only (it writes files): loaded on first use, so no browser bundle carries it.
    const { saveOutputs } = await import('./save-outputs.js');
    return saveOutputs((ref, request) => this.#view(ref, { ...request, promptId }, 'cloud.files.saveOutputs()'), source, dir, options ?? {});
  }

  async #view(ref: FileRef, options: GetFileOptions | undefined, context: string): Promise<Response> {
    checkView(ref, options, VIEW_RULES, context);
    const { promptId, ...request } = options ?? {};
    const scoped = promptId === undefined ? request : this.#tokens.withToken(promptId, request);
    const response = await this.#http.requestRaw({ method: 'GET', path: '/api/view', query: viewQuery(ref), options: scoped });
    if (response.headers.get('x-graphcloud-view') !== 'url') return response;
    // A relay in url mode answers the signed URL (docs/browser.md): fetched with no credential.
    const { url } = (await response.json()) as { url?: unknown };
    if (typeof url !== 'string' || !/^https?:\/\//i.test(url)) throw new GraphcloudError(`${context}: the relay answered a file URL that is not an absolute http(s) URL`);
    return this.#http.requestRaw({ method: 'GET', path: url, anonymous: true, options: request });
  }

  async #upload(kind: 'image' | 'mask', input: FileInput, options: UploadMaskOptions | UploadOptions | undefined, rules: OptionRules, context: string): Promise<UploadResult> {
    const check = new Checker();
    if (!isFileInput(input)) check.fail('input', 'a Blob, File, ArrayBuffer, Uint8Array, ReadableStream or file path', input);
    checkOptions(check, 'options', options, rules);
    const missingRef = options === undefined || (isPlainObject(options) && options.originalRef === undefined);
    if (kind === 'mask' && missingRef) check.fail('options.originalRef', 'the image the mask applies to (an upload result or a file reference)', undefined);
    check.throwIfInvalid(context);
    const { type, overwrite, filename, subfolder, originalRef, ...request } = (options ?? {}) as Partial<UploadMaskOptions>;
    const name = fileName(input, filename);
    const form = (file: Blob) => formOf(file, name, kind, type, overwrite, subfolder, originalRef);
    const send = (body: FormData | ReadableStream<Uint8Array>, headers?: Record<string, string>) =>
      this.#http.request({
        method: 'POST',
        path: `/api/upload/${kind}`,
        body,
        // streamBody: fetch would otherwise tee the form to replay it on a redirect, holding the whole file in memory.
        streamBody: true,
        schema: UploadSchema,
        options: headers ? { ...request, headers: { ...request.headers, ...headers } } : request,
      });
    let answer: Awaited<ReturnType<typeof send>>;
    if (typeof input === 'string' && streamsUploads()) {
      // A file path is opened by this call and closed before it settles, however it ends, and
      // streamed from disk in small pieces (model/multipart.ts): the peak memory of a large upload
      // stays far below the file's size.
      // Node only: loaded on first use, so no browser bundle carries it.
      const { streamForm } = await import('./multipart.js');
      answer = await withFile(input, 'input', async (file) => {
        const streamed = await streamForm(form, file, file.type || (mimeTypeOf(name) ?? ''));
        return send(streamed.body, streamed.headers);
      });
    } else {
      // Other inputs are in memory already (a path on Bun and Deno is the runtime's file blob).
      let blob = await toBlob(input, 'input');
      const mime = mimeTypeOf(name);
      if (!blob.type && mime) blob = blob.slice(0, blob.size, mime);
      answer = await send(form(blob));
    }
    return { name: answer.name, subfolder: answer.subfolder ?? '', type: answer.type ?? undefined };
  }
}

/**
 * True for every `FileInput` form: a `Blob`/`File`, bytes, a stream, or a non-empty path.
 *
 * @example
 * ```ts
 * isFileInput('./photo.png'); // true
 * ```
 */
export function isFileInput(value: unknown): value is FileInput {
  return (typeof value === 'string' && value.trim() !== '') || value instanceof Blob || value instanceof ArrayBuffer || ArrayBuffer.isView(value) || value instanceof ReadableStream;
}

const FILE_TYPES = ['output', 'input', 'temp'];

function checkView(ref: FileRef, options: unknown, rules: OptionRules, context: string): void {
  const check = new Checker();
  if (isPlainObject(ref)) {
    check.string('ref.filename', ref.filename, { required: true });
    check.string('ref.subfolder', ref.subfolder, { allowEmpty: true });
    // The view route serves these three stores only (docs/wire-protocol.md#cloud-outputs-files-and-uploads).
    check.oneOf('ref.type', ref.type, FILE_TYPES);
  } else check.fail('ref', 'a file reference {filename, subfolder?, type?}', ref);
  checkOptions(check, 'options', options, rules);
  check.throwIfInvalid(context);
}

function viewQuery(ref: FileRef): { filename: string; subfolder: string; type: string } {
  return { filename: ref.filename, subfolder: ref.subfolder ?? '', type: ref.type ?? 'output' };
}

/**
 * True where a file path is streamed from an opened file (model/multipart.ts): Node's own `fetch`
 * (undici), which accepts a streamed request body and a computed `content-length`. Bun and Deno
 * send the `FormData` with the runtime's file blob.
 */
function streamsUploads(): boolean {
  const g = globalThis as { process?: { versions?: Record<string, string | undefined> }; Deno?: unknown };
  return Boolean(g.process?.versions?.node) && !g.process?.versions?.bun && g.Deno === undefined;
}

function fileName(input: FileInput, explicit: string | undefined): string {
  if (explicit) return explicit;
  if (typeof input === 'string') return baseName(input);
  if (typeof File !== 'undefined' && input instanceof File && input.name) return input.name;
  if (input instanceof Blob && input.type === 'image/jpeg') return 'upload.jpg';
  return 'upload.png';
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
    // A JSON string, not nested form fields (docs/wire-protocol.md#cloud-outputs-files-and-uploads).
    form.append('original_ref', JSON.stringify(ref));
  }
  return form;
}
