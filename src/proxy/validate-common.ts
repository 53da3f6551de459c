import type { Checker } from '../core/index.js';

/**
 * A record of params as received at run time (JavaScript callers bypass the types).
 * @example const fields: Fields = { image: url, sharpen: 10 };
 */
export type Fields = Record<string, unknown>;

const INT32 = { min: -2_147_483_648, max: 2_147_483_647 };

/**
 * Records a problem unless `params` is a plain object; returns whether it is.
 * @example if (checkObject(check, 'advanced_settings', value)) checkIntegers(check, value, ['contrast'], 0, 100, 'advanced_settings.');
 */
export function checkObject(check: Checker, path: string, value: unknown): value is Fields {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return true;
  check.fail(path, 'an object', value);
  return false;
}

/**
 * An integer within the int32 range of the wire, optionally narrower.
 * @example checkInt32(check, 'seed', 2 ** 31); // records: an integer from -2147483648 to 2147483647
 */
export function checkInt32(check: Checker, path: string, value: unknown, rule: { min?: number; max?: number; required?: boolean } = {}): void {
  check.integer(path, value, { min: rule.min ?? INT32.min, max: rule.max ?? INT32.max, required: rule.required ?? false });
}

/**
 * Several integer fields sharing one range.
 * @example checkIntegers(check, params, ['creativity', 'hdr'], -10, 10);
 */
export function checkIntegers(check: Checker, fields: Fields, names: readonly string[], min: number, max: number, prefix = ''): void {
  for (const name of names) check.integer(prefix + name, fields[name], { min, max });
}

/**
 * Fields whose value must be one of their list in `lists` (a task's `PROXY_ENUMS` entry); by
 * default every list of it is checked.
 * @example checkEnums(check, params, PROXY_ENUMS.upscale); // scale_factor, engine, optimized_for
 */
export function checkEnums(check: Checker, fields: Fields, lists: Readonly<Record<string, unknown>>, names: readonly string[] = Object.keys(lists), prefix = ''): void {
  for (const name of names) {
    const list = lists[name];
    if (Array.isArray(list)) check.oneOf(prefix + name, fields[name], list);
  }
}

/**
 * Several boolean fields.
 * @example checkBooleans(check, params, ['audio', 'bgm']);
 */
export function checkBooleans(check: Checker, fields: Fields, names: readonly string[], prefix = ''): void {
  for (const name of names) check.boolean(prefix + name, fields[name]);
}

/**
 * A callback (`webhook_url`, `callback_url`) or other link: an absolute http(s) URL. It is sent
 * unchanged; no payload or signature is documented, so the SDK neither adds nor verifies one.
 * @example checkUrl(check, 'callback_url', 'hooks/x'); // records: an absolute http(s) URL
 */
export function checkUrl(check: Checker, path: string, value: unknown): void {
  if (value === undefined || value === null) return;
  if (typeof value === 'string' && /^https?:\/\//i.test(value) && URL.canParse(value)) return;
  check.fail(path, 'an absolute http(s) URL', value);
}
