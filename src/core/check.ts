import { ResponseValidationError } from './errors/response-validation-error.js';
import { ValidationError, type ValidationIssue } from './errors/validation-error.js';

/**
 * True for any object that is not an array (what zod reads as an object): class instances too,
 * unlike {@link isPlainObject}.
 *
 * @example
 * ```ts
 * isRecord(new Date()); // true
 * isRecord([1]); // false
 * ```
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * An own property of `record` (`undefined` when it is not an object): keys from data never reach
 * `Object.prototype` (a node type or input named `constructor` is not `Object`'s).
 *
 * @example
 * ```ts
 * own({ a: 1 }, 'a'); // 1
 * own({}, 'constructor'); // undefined
 * ```
 */
export function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined;
export function own(record: unknown, key: string | number): unknown;
export function own(record: unknown, key: string | number): unknown {
  if (typeof record !== 'object' || record === null) return undefined;
  return Object.hasOwn(record, key) ? (record as Record<string, unknown>)[key] : undefined;
}

/** Bounds and flags shared by the number checks. */
export interface NumberRule {
  min?: number;
  max?: number;
  required?: boolean;
}

/**
 * Collects every broken rule of a call's arguments, then throws one `ValidationError`
 * listing them all (so the caller fixes everything in one go, before money is spent).
 *
 * @example
 * ```ts
 * const check = new Checker();
 * check.integer('star', star, { min: 1, max: 5, required: true });
 * check.throwIfInvalid('nodes.review()');
 * ```
 */
export class Checker {
  readonly issues: ValidationIssue[] = [];

  /** Records a broken rule. */
  fail(path: string, rule: string, received: unknown): void {
    this.issues.push({ path, rule, received });
  }

  /** A value that must be present. Returns false when it is missing. */
  required(path: string, value: unknown): boolean {
    if (value === undefined || value === null) {
      this.fail(path, 'required', value);
      return false;
    }
    return true;
  }

  /** A string, non-empty by default, with an optional maximum length in characters. */
  string(path: string, value: unknown, rule: { required?: boolean; maxLength?: number; allowEmpty?: boolean } = {}): void {
    if (value === undefined || value === null) {
      if (rule.required) this.fail(path, 'a non-empty string', value);
      return;
    }
    if (typeof value !== 'string') return this.fail(path, 'a string', value);
    if (!rule.allowEmpty && value.trim() === '') return this.fail(path, 'a non-empty string', value);
    // Characters are code points: an emoji is one character, though two UTF-16 units.
    if (rule.maxLength !== undefined && value.length > rule.maxLength) {
      const characters = countCodePoints(value);
      if (characters > rule.maxLength) this.fail(path, `at most ${rule.maxLength} characters`, `${characters} characters`);
    }
  }

  /** A whole number within optional bounds. */
  integer(path: string, value: unknown, rule: NumberRule = {}): void {
    if (value === undefined || value === null) {
      if (rule.required) this.fail(path, describeRange('an integer', rule), value);
      return;
    }
    if (typeof value !== 'number' || !Number.isInteger(value)) return this.fail(path, describeRange('an integer', rule), value);
    if ((rule.min !== undefined && value < rule.min) || (rule.max !== undefined && value > rule.max)) {
      this.fail(path, describeRange('an integer', rule), value);
    }
  }

  /** A finite number within optional bounds (`NaN` and `Infinity` are refused). */
  number(path: string, value: unknown, rule: NumberRule = {}): void {
    if (value === undefined || value === null) {
      if (rule.required) this.fail(path, describeRange('a finite number', rule), value);
      return;
    }
    if (typeof value !== 'number' || !Number.isFinite(value)) return this.fail(path, describeRange('a finite number', rule), value);
    if ((rule.min !== undefined && value < rule.min) || (rule.max !== undefined && value > rule.max)) {
      this.fail(path, describeRange('a finite number', rule), value);
    }
  }

  /** A boolean. */
  boolean(path: string, value: unknown, rule: { required?: boolean } = {}): void {
    if (value === undefined || value === null) {
      if (rule.required) this.fail(path, 'true or false', value);
      return;
    }
    if (typeof value !== 'boolean') this.fail(path, 'true or false', value);
  }

  /** One of a fixed list of values. */
  oneOf(path: string, value: unknown, allowed: readonly unknown[], rule: { required?: boolean } = {}): void {
    if (value === undefined || value === null) {
      if (rule.required) this.fail(path, `one of: ${allowed.join(', ')}`, value);
      return;
    }
    if (!allowed.includes(value)) this.fail(path, `one of: ${allowed.join(', ')}`, value);
  }

  /**
   * An id that becomes one URL path segment: a non-empty string that is not `.` or `..`, also
   * once percent-decoded (a URL parser resolves dot segments, which would reach another route).
   */
  id(path: string, value: unknown): void {
    if (typeof value !== 'string' || value.trim() === '') return this.fail(path, 'a non-empty id string', value);
    if (isDotSegment(value)) return this.fail(path, 'an id, not "." or ".." (which would address another route)', value);
    if (LONE_SURROGATE.test(value)) this.fail(path, 'an id of well-formed text (it holds a lone UTF-16 surrogate, which no URL can carry)', value);
  }

  /** Throws a `ValidationError` when any rule was broken. */
  throwIfInvalid(context?: string): void {
    if (this.issues.length > 0) throw new ValidationError(this.issues, context);
  }
}

// Half of a surrogate pair with no other half: `encodeURIComponent` throws a URIError on it.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * True when a string can be one URL path segment: not blank, not `.` or `..` (also
 * percent-encoded), and well-formed text. Ids a server hands back go through this before the SDK
 * puts them in a URL.
 *
 * @example
 * ```ts
 * isPathSegment('p-1'); // true
 * isPathSegment('%2e%2e'); // false
 * ```
 */
export function isPathSegment(value: string): boolean {
  return value.trim() !== '' && !isDotSegment(value) && !LONE_SURROGATE.test(value);
}

/**
 * Refuses the id a submission's answer named its job or task with, when no URL can carry it (see
 * `isPathSegment()`): the work may exist, but it cannot be followed, and it is not sent again.
 *
 * @example
 * ```ts
 * checkAnsweredId(answer.prompt_id, { field: 'prompt_id', work: 'job', body: answer, method: 'POST', url });
 * ```
 */
export function checkAnsweredId(id: string, init: { field: string; work: 'job' | 'task'; body: unknown; method: string; url: string }): void {
  if (isPathSegment(id)) return;
  const problem = `${init.field}: not an id a URL can carry (blank, "." or "..", or malformed text): the ${init.work} may have been ${init.work === 'job' ? 'created' : 'accepted'} (and billed), but it cannot be followed; it was not submitted again`;
  throw new ResponseValidationError({ field: init.field, problems: [problem], body: init.body, method: init.method, url: init.url });
}

/** True for `.`, `..` and any percent-encoding of them, decoded up to three times. */
export function isDotSegment(value: string): boolean {
  let current = value;
  for (let i = 0; i < 4; i++) {
    if (current === '.' || current === '..') return true;
    let decoded: string;
    try {
      decoded = decodeURIComponent(current);
    } catch {
      return false;
    }
    if (decoded === current) return false;
    current = decoded;
  }
  return false;
}

/**
 * Checks that every named id is a valid path segment, and throws at once when one is not.
 *
 * @example
 * ```ts
 * checkIds('registry.nodes.delete()', { publisherId, nodeId });
 * ```
 */
export function checkIds(context: string, values: Record<string, unknown>, check = new Checker()): void {
  for (const [name, value] of Object.entries(values)) check.id(name, value);
  check.throwIfInvalid(context);
}

function describeRange(kind: string, rule: NumberRule): string {
  if (rule.min !== undefined && rule.max !== undefined) return `${kind} from ${rule.min} to ${rule.max}`;
  if (rule.min !== undefined) return `${kind} of at least ${rule.min}`;
  if (rule.max !== undefined) return `${kind} of at most ${rule.max}`;
  return kind;
}

function countCodePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is a single code point.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}
