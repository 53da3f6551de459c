import { usageError } from './errors.js';

/**
 * One `key=value` of `--set`, `--upload` or `--param`. `key:=value` marks the value as JSON.
 *
 * @example
 * ```ts
 * parseAssignment('KSampler.seed=42', '--set', 'graphcloud run --help'); // { key: 'KSampler.seed', value: '42', json: false }
 * ```
 */
export interface Assignment {
  key: string;
  value: string;
  /** Written `key:=value`: the value is JSON. */
  json: boolean;
}

/**
 * Splits `key=value` (or `key:=json`) at the first `=`: the value may hold `=`, the key may not.
 *
 * @throws {CliError} no `=`, or an empty key.
 * @example
 * ```ts
 * parseAssignment('prompt=a=b', '--param', 'graphcloud task --help').value; // 'a=b'
 * ```
 */
export function parseAssignment(text: string, flag: string, help: string): Assignment {
  const at = text.indexOf('=');
  if (at <= 0) throw usageError(`${flag} takes key=value, received "${text}".`, help);
  const json = text[at - 1] === ':';
  const key = text.slice(0, json ? at - 1 : at).trim();
  if (!key) throw usageError(`${flag} takes key=value, received "${text}".`, help);
  return { key, value: text.slice(at + 1), json };
}

const NUMBER = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * The value of an assignment, typed: JSON when written `key:=value`; else like `current` (the value
 * it replaces: a number stays a number, text stays text); else a number or `true`/`false` when it
 * reads as one, and text otherwise.
 *
 * @throws {CliError} JSON that does not parse, or text where a number or boolean is expected.
 * @example
 * ```ts
 * typedValue({ key: 'seed', value: '42', json: false }, 7, '--set', help);     // 42
 * typedValue({ key: 'text', value: '42', json: false }, 'a cat', '--set', help); // '42'
 * ```
 */
export function typedValue(assignment: Assignment, current: unknown, flag: string, help: string): unknown {
  const { key, value, json } = assignment;
  if (json) {
    try {
      return JSON.parse(value) as unknown;
    } catch {
      throw usageError(`${flag} ${key}:=… takes JSON, and "${value}" is not JSON (text is written ${key}=text).`, help);
    }
  }
  if (typeof current === 'number') {
    if (!NUMBER.test(value.trim())) throw usageError(`${flag} ${key} takes a number (it is ${current} in the workflow), received "${value}".`, help);
    return Number(value);
  }
  if (typeof current === 'boolean') {
    const bool = parseBoolean(value);
    if (bool === undefined) throw usageError(`${flag} ${key} takes true or false, received "${value}".`, help);
    return bool;
  }
  if (typeof current === 'string') return value;
  if (NUMBER.test(value.trim())) return Number(value);
  return parseBoolean(value, true) ?? value;
}

function parseBoolean(value: string, strict = false): boolean | undefined {
  const lower = value.trim().toLowerCase();
  if (lower === 'true' || (!strict && ['yes', '1', 'on'].includes(lower))) return true;
  if (lower === 'false' || (!strict && ['no', '0', 'off'].includes(lower))) return false;
  return undefined;
}

const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3_600_000 };

/**
 * A duration flag in milliseconds: `90s`, `10m`, `1h30m`, `500ms`, a bare number of seconds, or
 * `none` (no deadline: `false`).
 *
 * @throws {CliError} anything else, or zero.
 * @example
 * ```ts
 * parseDuration('1h30m', '--timeout', help); // 5_400_000
 * ```
 */
export function parseDuration(text: string, flag: string, help: string): number | false {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === 'none' || trimmed === 'never') return false;
  if (/^\d+(?:\.\d+)?$/.test(trimmed)) return check(Number(trimmed) * 1000);
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|min|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== trimmed) throw usageError(`${flag} takes a duration such as 90s, 10m or 1h30m (or none), received "${text}".`, help);
  return check(parts.reduce((sum, [, amount, unit]) => sum + Number(amount) * UNITS[unit!]!, 0));

  function check(ms: number): number {
    if (!(ms >= 1) || !Number.isFinite(ms)) throw usageError(`${flag} must be longer than zero, received "${text}".`, help);
    return Math.min(Math.round(ms), 2 ** 31 - 1);
  }
}

/**
 * `mm:ss` (or `h:mm:ss`) of an elapsed time.
 *
 * @example
 * ```ts
 * clock(75_000); // '01:15'
 * ```
 */
export function clock(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const two = (n: number): string => String(n).padStart(2, '0');
  const h = Math.floor(total / 3600);
  return h > 0 ? `${h}:${two(Math.floor((total % 3600) / 60))}:${two(total % 60)}` : `${two(Math.floor(total / 60))}:${two(total % 60)}`;
}

/**
 * `--max-cost USD`: a positive amount of dollars, such as `0.5` or `$12`.
 *
 * @example
 * ```ts
 * parseMaxCost('$2.50', 'graphcloud run --help'); // 2.5
 * ```
 */
export function parseMaxCost(text: unknown, help: string): number {
  const value = String(text).trim().replace(/^\$/, '');
  const usd = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || !Number.isFinite(usd) || usd <= 0) throw usageError(`--max-cost takes an amount of US dollars above 0, such as 0.50 or 12, received "${String(text)}".`, help);
  return usd;
}

/**
 * A whole-number flag such as `--concurrency 4`: digits only (no sign, point or exponent), from
 * `min` to `max`; `fallback` when the flag is not given.
 *
 * @throws {CliError} anything else, naming the range.
 * @example
 * ```ts
 * parseWholeNumber('8', '--concurrency', 'graphcloud batch --help', { min: 1, max: 256 }); // 8
 * ```
 */
export function parseWholeNumber(value: unknown, flag: string, help: string, range: { min: number; max?: number; fallback?: number }): number {
  if (value === undefined && range.fallback !== undefined) return range.fallback;
  const text = String(value).trim();
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < range.min || (range.max !== undefined && n > range.max)) {
    const wanted = range.max === undefined ? `above ${range.min - 1}` : `from ${range.min} to ${range.max}`;
    throw usageError(`${flag} takes a whole number ${wanted}, received "${String(value)}".`, help);
  }
  return n;
}
