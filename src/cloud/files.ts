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
  readonly #uploads = new UploadCache();

  /** @internal Built by `CloudClient` (use `cloud.files`). */
  constructor(http: HttpClient, tokens: RelayTokens) {
    this.#http = http;
    this.#tokens = tokens;
  }

  /**
   * Uploads an input image (`POST /api/upload/image`); use the returned `name` in the workflow
   * (the server may rename or deduplicate). A file path is streamed from disk. The same bytes
   * with the same options are sent once per client: a later call answers the first upload's
   * result, a concurrent one shares its request (files above 32 MiB and streams are always sent).
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
    const upload = async (): Promise<UploadResult> => {
      const answer = await this.#send(input, name, form, send);
      return { name: answer.name, subfolder: answer.subfolder ?? '', type: answer.type ?? undefined };
    };
    // The same bytes with the same options are uploaded once per client (upload-cache.ts).
    const bytes = await hashableBytes(input, readHead);
    if (bytes === undefined) return upload();
    const key = await uploadKey(bytes, [kind, name, type ?? 'input', overwrite ?? null, subfolder ?? null, originalRef ?? null]);
    return this.#uploads.share(key, request.signal, upload);
  }

  async #send<T>(input: FileInput, name: string, form: (file: Blob) => FormData, send: (body: FormData | ReadableStream<Uint8Array>, headers?: Record<string, string>) => Promise<T>): Promise<T> {
    if (typeof input === 'string' && streamsUploads()) {
      // A file path is opened by this call and closed before it settles, however it ends, and
      // streamed from disk in small pieces (model/multipart.ts): the peak memory of a large upload
      // stays far below the file's size.
      // Node only: loaded on first use, so no browser bundle carries it.
      const { streamForm } = await import('./multipart.js');
      return withFile(input, 'input', async (file) => {
        const streamed = await streamForm(form, file, file.type || (mimeTypeOf(name) ?? ''));
        return send(streamed.body, streamed.headers);
      });
    }
    // Other inputs are in memory already (a path on Bun and Deno is the runtime's file blob).
    let blob = await toBlob(input, 'input');
    const mime = mimeTypeOf(name);
    if (!blob.type && mime) blob = blob.slice(0, blob.size, mime);
    return send(form(blob));
  }
}

/** A file's bytes when it holds at most `max` of them (opened, read and closed here), else undefined. */
function readHead(path: string, max: number): Promise<Uint8Array | undefined> {
  return withFile(path, 'input', async (file) => (file.size <= max ? file.head(file.size) : undefined));
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

// The uploads one client already made, by content: the cloud stores files by content, so the same
// bytes sent again with the same options answer the same name (a batch of 40 sets naming one photo
// uploads it once). Keyed by a SHA-256 of the bytes (WebCrypto) and every option the answer depends
// on; a failed upload is forgotten at once, and concurrent identical uploads share one request.

/** Distinct uploads a client remembers; the oldest is forgotten first. */
const REMEMBERED_UPLOADS = 1024;
/** Larger files are not hashed (WebCrypto digests whole buffers only): they are sent every time. */
const HASHED_BYTES_MAX = 32 * 1024 * 1024;

interface Entry {
  promise: Promise<UploadResult>;
  /** The signal of the call that started the request: its abort ends the request for every caller. */
  signal: AbortSignal | undefined;
}

/**
 * The bytes an upload's key is computed from: an in-memory input, or a file path's contents read
 * once (the upload itself still streams the file); `undefined` for a stream, a file above 32 MiB,
 * or a runtime without WebCrypto's digest (a page served over plain http), which are not shared.
 *
 * @example
 * ```ts
 * const bytes = await hashableBytes(blob, async () => undefined);
 * ```
 */
async function hashableBytes(input: FileInput, readPath: (path: string, max: number) => Promise<Uint8Array | undefined>): Promise<Uint8Array | undefined> {
  if (globalThis.crypto?.subtle === undefined) return undefined;
  if (typeof input === 'string') return readPath(input, HASHED_BYTES_MAX);
  if (input instanceof ArrayBuffer) return input.byteLength <= HASHED_BYTES_MAX ? new Uint8Array(input) : undefined;
  if (ArrayBuffer.isView(input)) return input.byteLength <= HASHED_BYTES_MAX ? new Uint8Array(input.buffer, input.byteOffset, input.byteLength) : undefined;
  if (input instanceof Blob) return input.size <= HASHED_BYTES_MAX ? new Uint8Array(await input.arrayBuffer()) : undefined;
  return undefined;
}

/**
 * The key of one upload: the SHA-256 of its bytes and every option its answer depends on (route,
 * file name, type, overwrite, subfolder, a mask's original image).
 *
 * @example
 * ```ts
 * const key = await uploadKey(bytes, ['image', 'photo.png', 'input', '', '']);
 * ```
 */
async function uploadKey(bytes: Uint8Array, options: readonly unknown[]): Promise<string> {
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  const hex = Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return JSON.stringify([hex, ...options]);
}

/**
 * The uploads of one client, by key: `share()` answers an upload made before, joins one in flight,
 * or starts it. Only successes are kept.
 *
 * @example
 * ```ts
 * const result = await cache.share(key, signal, () => send(form));
 * ```
 */
class UploadCache {
  readonly #entries = new Map<string, Entry>();

  /**
   * The answer of the upload `key`: the one kept, the one in flight, else `start()`'s. A request
   * another caller started and aborted is started again for this one; any other failure is shared.
   */
  async share(key: string, signal: AbortSignal | undefined, start: () => Promise<UploadResult>): Promise<UploadResult> {
    for (let entry = this.#entries.get(key); entry !== undefined; entry = this.#entries.get(key)) {
      try {
        return copy(await untilAborted(entry.promise, signal));
      } catch (error) {
        if (signal?.aborted || !entry.signal?.aborted) throw error;
      }
    }
    const entry: Entry = { promise: start(), signal };
    this.#entries.set(key, entry);
    if (this.#entries.size > REMEMBERED_UPLOADS) this.#entries.delete(this.#entries.keys().next().value!);
    // Registered before any caller awaits it: a failed upload is forgotten before they see the failure.
    entry.promise.catch(() => {
      if (this.#entries.get(key) === entry) this.#entries.delete(key);
    });
    return copy(await entry.promise);
  }
}

/** Each caller gets its own object: one changing its answer changes no other's. */
function copy(result: UploadResult): UploadResult {
  return { ...result };
}

/** `promise`, or the caller's abort first: waiting on someone else's request stops with one's own signal. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
