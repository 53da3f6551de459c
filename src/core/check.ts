// What a caller gives, checked when given, before anything is sent: arguments (`Checker`, ids as
// one path segment) and options objects (`checkOptions` with the rules of `rule.*`); and the
// callbacks among them, called through `callSafely()`.
import { ValidationError, type ValidationIssue } from './errors.js';
import { isDotSegment, LONE_SURROGATE, resolveBaseUrl } from './request.js';
import { MAX_TIMER_MS } from './wait.js';

/** Bounds and flags shared by the number checks. */
export interface NumberRule {
  min?: number;
  max?: number;
  required?: boolean;
}

// A missing value (`undefined` or `null`: servers send null for empty values) breaks a rule only
// when the rule says it is required.
const isMissing = (value: unknown): value is undefined | null => value === undefined || value === null;

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
    if (isMissing(value)) this.fail(path, 'required', value);
    return !isMissing(value);
  }

  /** A string, non-empty by default, with an optional maximum length in characters. */
  string(path: string, value: unknown, rule: { required?: boolean; maxLength?: number; allowEmpty?: boolean } = {}): void {
    if (isMissing(value)) {
      if (rule.required) this.fail(path, 'a non-empty string', value);
      return;
    }
    if (typeof value !== 'string') return this.fail(path, 'a string', value);
    if (!rule.allowEmpty && value.trim() === '') return this.fail(path, 'a non-empty string', value);
    // Characters are code points: an emoji is one character, though two UTF-16 units.
    if (rule.maxLength !== undefined && value.length > rule.maxLength) {
      // A string iterates by code point; a lone surrogate is one too.
      const characters = [...value].length;
      if (characters > rule.maxLength) this.fail(path, `at most ${rule.maxLength} characters`, `${characters} characters`);
    }
  }

  /** A whole number within optional bounds. */
  integer(path: string, value: unknown, rule: NumberRule = {}): void {
    this.#number(path, value, rule, 'an integer', Number.isInteger);
  }

  /** A finite number within optional bounds (`NaN` and `Infinity` are refused). */
  number(path: string, value: unknown, rule: NumberRule = {}): void {
    this.#number(path, value, rule, 'a finite number', Number.isFinite);
  }

  #number(path: string, value: unknown, rule: NumberRule, kind: string, isKind: (value: number) => boolean): void {
    const wrong = typeof value !== 'number' || !isKind(value) || value < (rule.min ?? -Infinity) || value > (rule.max ?? Infinity);
    if (isMissing(value) ? rule.required : wrong) this.fail(path, describeRange(kind, rule), value);
  }

  /** A boolean. */
  boolean(path: string, value: unknown, rule: { required?: boolean } = {}): void {
    if (isMissing(value) ? rule.required : typeof value !== 'boolean') this.fail(path, 'true or false', value);
  }

  /** One of a fixed list of values. */
  oneOf(path: string, value: unknown, allowed: readonly unknown[], rule: { required?: boolean } = {}): void {
    if (isMissing(value) ? rule.required : !allowed.includes(value)) this.fail(path, `one of: ${allowed.join(', ')}`, value);
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

/** The rule of a value that passes `test` or is one of `allowed` (by default, left out): else it fails with `expected`. */
const valueRule = (expected: string, test: (value: unknown) => boolean, allowed: unknown[] = [undefined]): Rule => (check, path, value) => {
  if (!allowed.includes(value) && !test(value)) check.fail(path, expected, value);
};
/** A finite number of milliseconds above 0 and at most `max`. */
const isMs = (max: number) => (value: unknown) => typeof value === 'number' && Number.isFinite(value) && value > 0 && value <= max;

// Options: every option checked when given; an unknown option is refused.
/**
 * A rule for one option: records what is wrong with `value` on `check` (nothing when it is
 * `undefined`: options are optional unless a rule says otherwise).
 *
 * @example
 * ```ts
 * const positive: Rule = (check, path, value) => check.number(path, value, { min: 1 });
 * ```
 */
export type Rule = (check: Checker, path: string, value: unknown) => void;

/**
 * The rules of an options object, by option name. An option not listed is refused (with a
 * "did you mean" when a listed name is close): a misspelled option must not be silently ignored.
 *
 * @example
 * ```ts
 * const rules: OptionRules = { ...REQUEST_RULES, validate: rule.boolean };
 * ```
 */
export type OptionRules = Readonly<Record<string, Rule>>;


/**
 * The option rules every part of the SDK reuses.
 *
 * @example
 * ```ts
 * const rules: OptionRules = { timeout: rule.duration, onProgress: rule.callback };
 * ```
 */
export const rule = Object.freeze({
  /** A timeout in ms: a finite number above 0 (up to the timer limit). */
  duration: valueRule(`a number of milliseconds above 0 and at most ${MAX_TIMER_MS}`, isMs(MAX_TIMER_MS)),
  /** A deadline in ms, or `false` for none. */
  deadline: valueRule('a number of milliseconds above 0, or false for no deadline', isMs(Infinity), [undefined, false]),
  /** A function (a callback or hook). */
  callback: valueRule('a function', (value) => typeof value === 'function'),
  /** An `AbortSignal`. */
  signal: valueRule('an AbortSignal (for example AbortSignal.timeout(ms) or controller.signal)', isAbortSignal),
  /** Header names to string values. */
  headers: ((check, path, value) => {
    if (value === undefined) return;
    if (!isPlainObject(value)) return check.fail(path, 'an object of header names to string values', value);
    for (const [name, header] of Object.entries(value)) {
      if (!/^[!#$%&'*+\-.^`|~\w]+$/.test(name)) check.fail(`${path}["${name}"]`, 'a valid header name', name);
      else if (typeof header !== 'string') check.fail(`${path}.${name}`, 'a string', header);
      else if (/[\r\n\0]/.test(header)) check.fail(`${path}.${name}`, 'a header value without line breaks', '(a value with a line break)');
    }
  }) as Rule,
  boolean: ((check, path, value) => check.boolean(path, value)) as Rule,
  string: ((check, path, value) => check.string(path, value)) as Rule,
  /** Anything: the option is known, its value is checked elsewhere. */
  any: (() => undefined) as Rule,
  /** One of a fixed list of values. */
  oneOf: (values: readonly unknown[]): Rule => (check, path, value) => check.oneOf(path, value, values),
  /** A nested options object with its own rules (`checkOptions` lets `undefined` pass). */
  object: (rules: OptionRules): Rule => (check, path, value) => checkOptions(check, path, value, rules),
  /** An object with string keys, each value checked by `each`. */
  record: (each: Rule, what = 'an object'): Rule => (check, path, value) => {
    if (value === undefined) return;
    if (!isPlainObject(value)) return check.fail(path, what, value);
    for (const [key, item] of Object.entries(value)) each(check, `${path}["${key}"]`, item);
  },
});

/**
 * The rules of a backoff (`minDelayMs`, `maxDelayMs`, `growFactor`). `floorMs` is the smallest
 * first delay allowed: a status poll every millisecond only adds load.
 *
 * @example
 * ```ts
 * const poll = rule.object(backoffRules(100));
 * ```
 */
export function backoffRules(floorMs: number): OptionRules {
  const delay: Rule = (check, path, value) => check.number(path, value, { min: floorMs, max: MAX_TIMER_MS });
  return {
    minDelayMs: delay,
    maxDelayMs: delay,
    growFactor: (check, path, value) => check.number(path, value, { min: 1, max: 10 }),
  };
}

const RETRY_RULES: OptionRules = {
  ...backoffRules(0),
  limit: (check, path, value) => check.integer(path, value, { min: 0, max: 10 }),
  budgetMs: (check, path, value) => check.number(path, value, { min: 0 }),
};

/**
 * Rules of the retry option: a partial `RetryPolicy`, or `false`.
 *
 * @example
 * ```ts
 * const rules: OptionRules = { retry: retryRule };
 * ```
 */
export const retryRule: Rule = (check, path, value) => {
  if (value !== false) checkOptions(check, path, value, RETRY_RULES);
};

// The options a client and each of its requests both take.
const TRANSPORT_RULES: OptionRules = { timeout: rule.duration, totalTimeout: rule.duration, retry: retryRule, headers: rule.headers };

/**
 * Rules of `RequestOptions`: every public method that sends a request checks them.
 *
 * @example
 * ```ts
 * checkOptions(check, 'options', options, { ...REQUEST_RULES, includeTranslations: rule.boolean });
 * ```
 */
export const REQUEST_RULES: OptionRules = Object.freeze({ signal: rule.signal, ...TRANSPORT_RULES });

/**
 * Rules of `ClientOptions` (every constructor adds its own credential and options).
 *
 * @example
 * ```ts
 * checkOptions(check, 'options', options, { ...CLIENT_RULES, token: credentialRule });
 * ```
 */
export const CLIENT_RULES: OptionRules = Object.freeze({
  baseUrl: (check, path, value) => {
    if (resolveBaseUrl(value) !== undefined) return;
    if (typeof value === 'string' && value.startsWith('/')) check.fail(path, 'an absolute http(s) URL such as https://api.example.com (a path such as /api/graphcloud works in a browser page only)', '(a path, outside a browser page)');
    else check.fail(path, 'an absolute http(s) URL such as https://api.example.com', typeof value === 'string' ? '(not an absolute http(s) URL)' : value);
  },
  fetch: rule.callback,
  ...TRANSPORT_RULES,
  onRequest: rule.callback,
  onResponse: rule.callback,
});

/**
 * Rules of `WaitOptions`; `floorMs` is the smallest poll delay allowed.
 *
 * @example
 * ```ts
 * checkOptions(check, 'options', options, { ...waitRules(100), onUpdate: rule.callback });
 * ```
 */
export function waitRules(floorMs = 100): OptionRules {
  return { signal: rule.signal, waitTimeout: rule.deadline, poll: rule.object(backoffRules(floorMs)) };
}

/**
 * A credential option: a non-empty string, or a function returning one.
 *
 * @example
 * ```ts
 * checkOptions(check, 'options', options, { ...CLIENT_RULES, apiKey: credentialRule });
 * ```
 */
export const credentialRule: Rule = (check, path, value) => {
  if (value === undefined || typeof value === 'function') return;
  // The value is a secret: never echo it in the error.
  if (typeof value !== 'string' || value.trim() === '') check.fail(path, 'a non-empty string, or a function returning one', typeof value === 'string' ? '(an empty string)' : typeof value);
};

/**
 * Checks an options object: `undefined` passes, anything but a plain object is refused, every
 * known option is checked by its rule (`null` is refused for every option), and an unknown one is
 * refused with the closest known name.
 * Records on `check`; returns whether `value` was an object to read.
 *
 * @example
 * ```ts
 * const check = new Checker();
 * checkOptions(check, 'options', options, REQUEST_RULES);
 * check.throwIfInvalid('registry.nodes.get()');
 * ```
 */
export function checkOptions(check: Checker, path: string, value: unknown, rules: OptionRules): value is Record<string, unknown> {
  if (value === undefined) return false;
  if (!isPlainObject(value)) {
    check.fail(path, 'an options object (or nothing)', value);
    return false;
  }
  for (const [name, option] of Object.entries(value)) {
    const known = Object.hasOwn(rules, name) ? rules[name] : undefined;
    if (!known) check.fail(`${path}.${name}`, `a known option${suggest(name, Object.keys(rules))}`, '(unknown option)');
    // The Checker's value rules let `null` pass (wire fields may be null); an option may not be:
    // `null` would then stand for a 0 ms delay, a concurrency that never runs, a lost default.
    else if (option === null) check.fail(`${path}.${name}`, 'a value, or the option left out for its default (null is not an option value)', null);
    else known(check, `${path}.${name}`, option);
  }
  return true;
}

/**
 * Checks the options of a public method and throws a `ValidationError` naming every bad option,
 * before anything is sent.
 *
 * @example
 * ```ts
 * assertOptions('registry.nodes.get()', options, { ...REQUEST_RULES, includeTranslations: rule.boolean });
 * ```
 */
export function assertOptions(context: string, value: unknown, rules: OptionRules): void {
  const check = new Checker();
  checkOptions(check, 'options', value, rules);
  check.throwIfInvalid(context);
}

function suggest(name: string, known: readonly string[]): string {
  let best: string | undefined;
  let distance = 3;
  for (const candidate of known) {
    const d = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (d < distance) {
      best = candidate;
      distance = d;
    }
  }
  return best ? ` (did you mean "${best}"?)` : ` (one of: ${known.join(', ')})`;
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3) return 99;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min((previous[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length] ?? 99;
}

/**
 * True for a plain object (`{}`, `Object.create(null)`), false for arrays, class instances, null.
 *
 * @example
 * ```ts
 * isPlainObject({ a: 1 }); // true
 * isPlainObject(new Date()); // false
 * ```
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === null || proto === Object.prototype;
}

function isAbortSignal(value: unknown): value is AbortSignal {
  // The shape the SDK uses, so that signals from another realm or a polyfill pass too.
  const candidate = value as Partial<AbortSignal> | null;
  return typeof candidate === 'object' && candidate !== null && typeof candidate.aborted === 'boolean' && typeof candidate.addEventListener === 'function' && typeof candidate.removeEventListener === 'function';
}

/**
 * Calls a user callback (a hook, a listener, `onProgress`, `onSubmitted`...) with one argument
 * and `self` as `this`, so that nothing it does can break the SDK's own work: what it throws, and
 * what an async one rejects with, is caught and dropped. A paid job must not be lost because a
 * logger failed. Every caller passes at most one argument (a watcher's listeners pass their
 * `this` too), so there is no rest parameter to build per call.
 *
 * @example
 * ```ts
 * callSafely(options.onUpdate, status);
 * ```
 */
export function callSafely<T>(callback: ((this: never, arg: T) => unknown) | undefined, arg: T, self?: unknown): void;
export function callSafely(callback: (() => unknown) | undefined): void;
export function callSafely(callback: ((arg?: unknown) => unknown) | undefined, arg?: unknown, self?: unknown): void {
  if (typeof callback !== 'function') return;
  try {
    // A callback of no argument is handed `undefined`, which it ignores.
    const result = callback.call(self, arg);
    // An async callback's rejection would otherwise be unhandled (which ends a Node process).
    if (typeof (result as PromiseLike<unknown> | null)?.then === 'function') (result as PromiseLike<unknown>).then(undefined, () => undefined);
  } catch {
    // Callbacks observe: the work goes on.
  }
}
