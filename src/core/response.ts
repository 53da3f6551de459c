// Reading a response: a body read within 64 MiB and parsed, its request id, a success body
// validated against its zod schema at the boundary, the guards of every wait of a request, and
// two readers of parsed data that never reach a prototype (isRecord, own).
// The SDK's own timers and the caller's signal bound every wait of a request: the headers, a
// buffered body and a streamed body. The fetch implementation's own propagation of an abort is not
// relied on: ky combines signals with AbortSignal.any, whose derived signal a garbage collection
// can drop mid-read, after which a stalled body never settles. Each guard below holds a strong
// reference to its signal (through its listener and timer) until the body is consumed.
import type * as z from 'zod/mini';
import { GraphcloudError, ResponseValidationError } from './errors.js';
import { redactFields, redactUrl, scrubSecrets } from './redact.js';
import { follow, onAbort, setTimer } from './wait.js';

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

/** Largest body the SDK buffers (JSON and error answers); a larger one is an error, not an out-of-memory. */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

/**
 * Settles with `work`, or rejects with `signal.reason` as soon as the signal aborts. A value that
 * arrives after the abort is handed to `onLate` (to cancel a response body nobody will read).
 *
 * @example
 * ```ts
 * const response = await raceSignal(fetch(url), signal, (late) => void late.body?.cancel());
 * ```
 */
export function raceSignal<T>(work: Promise<T>, signal: AbortSignal, onLate?: (value: T) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let done = false;
    const abort = () => {
      done = true;
      reject(signal.reason);
    };
    // Aborted already: rejects at once, and a value that still arrives is late.
    let forget = (): void => undefined;
    if (signal.aborted) abort();
    else forget = onAbort(signal, abort);
    work.then(
      (value) => {
        forget();
        if (done) onLate?.(value);
        else resolve(value);
      },
      (error: unknown) => {
        forget();
        if (!done) reject(error);
      },
    );
  });
}

/**
 * Reads a whole body as text under `signal` (cancelling the stream when it aborts), refusing more
 * than `MAX_BODY_BYTES`: counted as it arrives, and refused at once when its `content-length`
 * already says more (a server that declares a huge body and stalls would otherwise hold the call
 * until its timeout).
 *
 * @example
 * ```ts
 * const text = await readText(response, controller.signal);
 * ```
 */
export async function readText(response: Response, signal: AbortSignal): Promise<string> {
  const stream = response.body;
  if (!stream) return '';
  // A compressed body's declared length is not its decoded size: it is only counted.
  if (!response.headers.has('content-encoding') && Number(response.headers.get('content-length')) > MAX_BODY_BYTES) {
    stream.cancel().catch(() => undefined);
    throw tooLarge();
  }
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await raceSignal(reader.read(), signal);
      if (done) return text + decoder.decode();
      size += value.byteLength;
      if (size > MAX_BODY_BYTES) throw tooLarge();
      text += decoder.decode(value, { stream: true });
    }
  } catch (error) {
    reader.cancel(error).catch(() => undefined);
    throw error;
  }
}

const tooLarge = () => new GraphcloudError(`The response body is larger than ${MAX_BODY_BYTES} bytes; the SDK does not buffer it`);

/**
 * A body read whole: JSON when it parses, the text otherwise, `undefined` when empty.
 *
 * @example
 * ```ts
 * parseBody('{"a":1}'); // { a: 1 }
 * parseBody('<html>Bad gateway</html>'); // the text
 * ```
 */
export function parseBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

const REQUEST_ID_HEADERS = ['x-request-id', 'request-id', 'x-amzn-requestid', 'cf-ray'];

/**
 * The request id a server or its edge put on an answer, for support tickets.
 *
 * @example
 * ```ts
 * readRequestId(new Headers({ 'cf-ray': '8a1b' })); // '8a1b'
 * ```
 */
export function readRequestId(headers: Headers): string | undefined {
  return REQUEST_ID_HEADERS.map((name) => headers.get(name)).find(Boolean) ?? undefined;
}

/**
 * Options of `guardStream()`.
 *
 * @example
 * ```ts
 * const options: StreamGuard = { signals: [caller], idleMs: 60_000, deadlineMs: 180_000, timeoutError: (ms) => new TimeoutError(op, ms), onDone };
 * ```
 */
export interface StreamGuard {
  /** Any of them aborting cancels the stream with its reason. */
  signals: readonly (AbortSignal | undefined)[];
  /** No byte for this long fails the stream. */
  idleMs: number;
  /** The whole stream must end within this long. */
  deadlineMs: number;
  timeoutError(limitMs: number): Error;
  /** Called once, when the body was read to its end, cancelled or failed. */
  onDone(): void;
}

/**
 * The same response, whose body fails when a signal aborts, when no byte arrives for `idleMs`, or
 * past `deadlineMs`, and releases its listeners and timers once it ends.
 *
 * @example
 * ```ts
 * return guardStream(response, { signals: [caller, closed], idleMs, deadlineMs, timeoutError, onDone });
 * ```
 */
export function guardStream(response: Response, guard: StreamGuard): Response {
  const source = response.body;
  if (!source) {
    guard.onDone();
    return response;
  }
  const reader = source.getReader();
  const life = new AbortController();
  const unfollow = follow(life, guard.signals);
  // The idle timer runs only while the reader waits for the server: a slow consumer is not a stall.
  let idle: ReturnType<typeof setTimeout> | undefined;
  let deadline: ReturnType<typeof setTimeout> | undefined;
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    clearTimeout(deadline);
    clearTimeout(idle);
    unfollow();
    guard.onDone();
  };
  const onStop = () => {
    reader.cancel(life.signal.reason).catch(() => undefined);
    finish();
  };
  if (life.signal.aborted) onStop();
  else life.signal.addEventListener('abort', onStop, { once: true });
  if (!life.signal.aborted) deadline = setTimer(() => life.abort(guard.timeoutError(guard.deadlineMs)), guard.deadlineMs);
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      idle = setTimer(() => life.abort(guard.timeoutError(guard.idleMs)), guard.idleMs);
      try {
        const { done, value } = await raceSignal(reader.read(), life.signal);
        clearTimeout(idle);
        if (done) {
          finish();
          controller.close();
        } else {
          controller.enqueue(value);
        }
      } catch (error) {
        clearTimeout(idle);
        finish();
        reader.cancel(error).catch(() => undefined);
        controller.error(error);
      }
    },
    async cancel(reason) {
      finish();
      await reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** Formats a zod issue path as `versions[2].status`. */
export function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(root)';
  return path.reduce<string>((out, key) => (typeof key === 'number' ? `${out}[${key}]` : out ? `${out}.${String(key)}` : String(key)), '');
}

/** Validates a response body at the boundary; a mismatch names the field and keeps the raw body. */
export function parseResponse<S extends z.ZodMiniType>(schema: S, body: unknown, method: string, url: string, secrets: readonly string[] = [], secretFields: readonly string[] = []): z.infer<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  // Redaction only on the failure path: a success body is the caller's data, returned as sent.
  const issues = result.error.issues.flatMap((issue) => explain(issue, body));
  // A field name is the server's too: one may be a credential it echoed.
  const problems = issues.slice(0, 5).map((issue) => scrubSecrets(`${formatPath(issue.path)}: ${issue.message}`, secrets));
  const field = scrubSecrets(formatPath(issues[0]?.path ?? []), secrets);
  throw new ResponseValidationError({ field, problems, body: redactFields(scrubSecrets(body, secrets), secretFields), method, url: redactUrl(url) });
}

type Issue = z.core.$ZodIssue;

// A union (a body with or without a `data` wrapper) reports one issue at its own path; the field
// that failed is inside the branch the body followed furthest (the most path segments present in
// the body), then the deepest one; on a tie the later branch, the plainer reading of a body.
function explain(issue: Issue, body: unknown): Issue[] {
  if (issue.code !== 'invalid_union' || !issue.errors?.length) return [issue];
  let best: readonly Issue[] | undefined;
  let score = [-1, -1];
  for (const branch of issue.errors) {
    const first = branch[0];
    if (!first) continue;
    const path = [...issue.path, ...first.path];
    const candidate = [presentDepth(body, path), path.length];
    if (candidate[0]! > score[0]! || (candidate[0] === score[0] && candidate[1]! >= score[1]!)) {
      best = branch;
      score = candidate;
    }
  }
  if (!best) return [issue];
  return best.flatMap((inner) => explain({ ...inner, path: [...issue.path, ...inner.path] }, body));
}

function presentDepth(body: unknown, path: readonly PropertyKey[]): number {
  let depth = 0;
  let current = body;
  for (const key of path) {
    if (current === null || typeof current !== 'object' || !(key in current)) break;
    current = (current as Record<PropertyKey, unknown>)[key];
    depth += 1;
  }
  return depth;
}
