import type * as z from 'zod/mini';
import { Checker, GraphcloudError, type HttpClient } from '../core/index.js';
import { observe } from './wait.js';
import { resolveImage, type Base64Format, type ResolvedImage } from './inputs.js';
import type { Fields } from './validate-common.js';
import type { SubmitOptions, TaskRef, WaitOptions } from './types.js';

/**
 * What the resources share: the HTTP core, encoding choices and the client's waiter.
 * @example const ctx: ProxyContext = { http, base64Format: { image: 'raw', video: 'data-url' }, maxUpscaledPixels: 25_300_000, wait };
 */
export interface ProxyContext {
  http: HttpClient;
  base64Format: { image: Base64Format; video: Base64Format };
  maxUpscaledPixels: number;
  wait(task: TaskRef, options: WaitOptions): Promise<unknown>;
}

/**
 * One submission route.
 * @example const spec: SubmitSpec<typeof VideoTaskSchema> = { call: 'proxy.video.extend()', path: '/proxy/videovendor/extend', schema: VideoTaskSchema, family: 'video', validate: validateExtend, imageFields: ['images[]'] };
 */
export interface SubmitSpec<S extends z.ZodMiniType> {
  /** Name used in error messages, e.g. `proxy.image.upscale()`. */
  call: string;
  path: string;
  schema: S;
  family: 'image' | 'video';
  validate(params: Fields, check: Checker): void;
  /** Where image inputs sit: `image`, `images[]`, `image_settings[].key_image`. */
  imageFields: readonly string[];
  /** Checks that need the encoded images (the upscaler's pixel limit). */
  afterEncode?(params: Fields, images: ReadonlyMap<string, ResolvedImage>, check: Checker, ctx: ProxyContext): void;
}

/**
 * Checks the params (unless `validate: false`), encodes binary images, then POSTs once: a
 * submission is never retried, since a second attempt could start a second paid task.
 *
 * @throws {ValidationError} listing every broken limit; nothing was sent.
 * @example const body = await submit(ctx, spec, { model: 'videoq2-pro', video_creation_id: id, video_url: url });
 */
export async function submit<S extends z.ZodMiniType>(ctx: ProxyContext, spec: SubmitSpec<S>, params: unknown, options: SubmitOptions = {}): Promise<z.infer<S>> {
  const { validate = true, wait: _wait, onSubmitted: _onSubmitted, ...requestOptions } = options;
  const check = new Checker();
  if (typeof params !== 'object' || params === null || Array.isArray(params)) {
    check.fail('params', 'an object', params);
    check.throwIfInvalid(spec.call);
  }
  const fields = params as Fields;
  if (validate) spec.validate(fields, check);
  const body: Fields = { ...fields };
  const images = new Map<string, ResolvedImage>();
  for (const at of spec.imageFields) await resolveAt(check, body, at.split('.'), '', ctx.base64Format[spec.family], images);
  if (validate) spec.afterEncode?.(fields, images, check, ctx);
  check.throwIfInvalid(spec.call);
  return ctx.http.request({ method: 'POST', path: spec.path, json: body, schema: spec.schema, idempotent: false, options: requestOptions });
}

/**
 * Hands a submitted task to `onSubmitted`, then, with `wait`, waits for it. An SDK error of the wait
 * carries the paid task as `error.task`, so it can be waited for again instead of lost.
 * @example return afterSubmit(ctx, task, options);
 */
export async function afterSubmit<T extends TaskRef>(ctx: ProxyContext, task: T, options: SubmitOptions | undefined): Promise<T | unknown> {
  observe(() => options?.onSubmitted?.(task as never));
  const wait = waitOptionsOf(options);
  if (!wait) return task;
  try {
    return await ctx.wait(task, wait);
  } catch (error) {
    if (error instanceof GraphcloudError && !('task' in error)) Object.defineProperty(error, 'task', { value: task, enumerable: true, configurable: true });
    throw error;
  }
}

/**
 * The options of the wait that follows a submission, sharing the submission's signal.
 * @example waitOptionsOf({ signal, wait: true }); // { signal }
 */
export function waitOptionsOf(options: SubmitOptions | undefined): WaitOptions | undefined {
  const wait = options?.wait;
  if (!wait) return undefined;
  const own = wait === true ? {} : wait;
  return { ...own, signal: own.signal ?? options?.signal };
}

// Replaces binary inputs by Base64 along a field path, copying (never mutating) the caller's objects.
async function resolveAt(check: Checker, container: Fields, segments: string[], prefix: string, format: Base64Format, out: Map<string, ResolvedImage>): Promise<void> {
  const [head = '', ...rest] = segments;
  const isArray = head.endsWith('[]');
  const name = isArray ? head.slice(0, -2) : head;
  const value = container[name];
  if (value === undefined || value === null) return;
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
  if (!isArray) {
    container[name] = await one(value, prefix + name);
    return;
  }
  if (!Array.isArray(value)) return;
  const items: unknown[] = [];
  for (const [i, item] of value.entries()) items.push(await one(item, `${prefix}${name}[${i}]`));
  container[name] = items;
}
