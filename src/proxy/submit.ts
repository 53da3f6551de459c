import { callSafely, Checker, checkOptions, type RequestOptions } from '../core/index.js';
import { resolveImage, type Base64Format, type ResolvedImage } from './inputs.js';
import { SUBMIT_TASK_RULES, type SubmitTaskOptions, type WaitForTaskOptions } from './options.js';
import { FAMILIES } from './schemas.js';
import { TASK_KINDS, TASKS, type ImageTaskParams, type TaskKind, type TaskParams, type VideoTaskParams } from './tasks.js';
import type { ImageTask, TaskOf, TaskResultOf, VideoTask } from './types.js';
import { checkFields, checkObject, type Fields } from './validate.js';
import { waitForTask, type ProxyContext } from './wait.js';

/**
 * One submission method (`proxy.image.upscale`...): it resolves to the task, or, with `wait`, to
 * the finished task's result.
 *
 * @example
 * ```ts
 * const upscale: TaskMethod<'upscale'> = proxy.image.upscale;
 * const result = await upscale({ image: url }, { wait: true }); // ImageTaskResult<'upscale'>
 * ```
 */
export interface TaskMethod<K extends TaskKind> {
  (params: TaskParams[K], options: SubmitTaskOptions<TaskOf<K>> & { wait: true | WaitForTaskOptions }): Promise<TaskResultOf<K>>;
  (params: TaskParams[K], options?: SubmitTaskOptions<TaskOf<K>> & { wait?: false | undefined }): Promise<TaskOf<K>>;
  (params: TaskParams[K], options?: SubmitTaskOptions<TaskOf<K>>): Promise<TaskOf<K> | TaskResultOf<K>>;
}

/**
 * The image tasks: `proxy.image`. Each method checks every documented limit, encodes binary inputs
 * to Base64, POSTs once (never retried) and resolves to an `ImageTask`, or with `{ wait }` to the
 * finished task's result. The methods are bound: `const { upscale } = proxy.image` works.
 *
 * @example
 * ```ts
 * const task = await proxy.image.upscale({ image: { path: './small.png' }, scale_factor: '4x' });
 * const { urls } = await proxy.waitForTask(task);
 * ```
 */
export type ImageTasks = { readonly [K in keyof ImageTaskParams]: TaskMethod<K> };

/**
 * The video tasks: `proxy.video`. Each method checks every documented limit, encodes binary images
 * as `data:` URLs, POSTs once (never retried) and resolves to a `VideoTask`, or with `{ wait }` to
 * the finished task's result.
 *
 * @example
 * ```ts
 * const task = await proxy.video.referenceToVideo({ model: 'videoq2-pro', prompt: 'waves', images: [{ path: './sea.png' }] });
 * const { urls: [video] } = await proxy.waitForTask(task);
 * ```
 */
export type VideoTasks = { readonly [K in keyof VideoTaskParams]: TaskMethod<K> };

/**
 * The submission methods of one family, built from the table of task kinds.
 * @example const image = createTaskMethods(ctx, 'image'); await image.upscale({ image: url });
 */
export function createTaskMethods<F extends 'image' | 'video'>(ctx: ProxyContext, family: F): F extends 'image' ? ImageTasks : VideoTasks {
  const kinds = TASK_KINDS.filter((kind) => TASKS[kind].family === family);
  const methods: Record<string, unknown> = {};
  for (const kind of kinds) methods[kind] = (params: unknown, options?: unknown) => submitTask(ctx, kind, params, options);
  // util.inspect shows the methods, nothing of the client.
  Object.defineProperty(methods, Symbol.for('nodejs.util.inspect.custom'), { value: () => `${family === 'image' ? 'ImageTasks' : 'VideoTasks'} { ${kinds.join(', ')} }` });
  return Object.freeze(methods) as F extends 'image' ? ImageTasks : VideoTasks;
}

/**
 * Checks the options and params (unless `validate: false`), encodes binary images, then POSTs
 * once: a submission is never retried, since a second attempt could start a second paid task.
 * Hands the task to `onSubmitted`, then, with `wait`, waits for it.
 *
 * @throws {@link ValidationError} listing every broken limit or option; nothing was sent.
 * @example const task = await submitTask(ctx, 'extend', { model: 'videoq2-pro', video_creation_id: id, video_url: url }, {});
 */
export async function submitTask(ctx: ProxyContext, kind: TaskKind, params: unknown, options: unknown): Promise<unknown> {
  ctx.http.throwIfClosed();
  const spec = TASKS[kind];
  const name = `proxy.${spec.family}.${kind}()`;
  const check = new Checker();
  // An options value that is not an object cannot be read further.
  if (!checkOptions(check, 'options', options, SUBMIT_TASK_RULES) && options !== undefined) check.throwIfInvalid(name);
  const { validate, wait, onSubmitted, ...request } = (options ?? {}) as SubmitTaskOptions;
  if (!checkObject(check, 'params', params)) check.throwIfInvalid(name);
  const fields = params as Fields;
  const checking = validate !== false;
  if (checking) checkFields(check, fields, spec.rules);
  const body: Fields = spec.toWire ? spec.toWire({ ...fields }) : { ...fields };
  const images = new Map<string, ResolvedImage>();
  const format = ctx.base64Format[spec.family];
  for (const at of spec.imageFields) await resolveAt(check, body, at.split('.'), '', format, images);
  if (checking) spec.afterEncode?.(fields, images, check);
  check.throwIfInvalid(name);

  const task = await FAMILIES[spec.family].submit(ctx.http, kind, spec.submitPath, body, request as RequestOptions);
  callSafely(onSubmitted as ((task: ImageTask | VideoTask) => unknown) | undefined, task);
  if (!wait) return task;
  const own = wait === true ? {} : wait;
  return waitForTask(ctx, task, { ...own, signal: own.signal ?? request.signal });
}

// Replaces binary inputs by Base64 along a field path, copying (never mutating) the caller's objects.
async function resolveAt(check: Checker, container: Fields, segments: string[], prefix: string, format: Base64Format, out: Map<string, ResolvedImage>): Promise<void> {
  const [head = '', ...rest] = segments;
  const name = head.replace(/\[\]$/, '');
  const value = container[name];
  // `images[]` names each item of a list: anything else there is left as it is.
  if (value === undefined || value === null || (name !== head && !Array.isArray(value))) return;
  const one = async (item: unknown, at: string): Promise<unknown> => {
    if (rest.length === 0) {
      const resolved = await resolveImage(check, at, item, format);
      out.set(at, resolved);
      return resolved.wire;
    }
    if (typeof item !== 'object' || item === null) return item;
    const copy: Fields = { ...(item as Fields) };
    await resolveAt(check, copy, rest, `${at}.`, format, out);
    return copy;
  };
  if (name === head) {
    container[name] = await one(value, prefix + name);
  } else {
    const items: unknown[] = [];
    for (const [i, item] of (value as unknown[]).entries()) items.push(await one(item, `${prefix}${name}[${i}]`));
    container[name] = items;
  }
}
