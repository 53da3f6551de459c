// One badge, compiled once and evaluated under bounds. JSONata 2 evaluates asynchronously but its
// steps are microtasks: a timer never fires while an expression loops, so the bound is checked at
// every step, in the hook JSONata calls on entering each one (`__evaluate_entry`, as JSONata's own
// test suite timeboxes expressions). The hook also yields to the event loop now and then, so a
// long evaluation does not starve the process. Depth and sequence length are JSONata's own
// guardrails (`stack`, `sequence`); regular expressions are refused (a catastrophic one runs
// inside a single step, where no hook can stop it).
import type jsonata from 'jsonata';
import { isRecord, own } from '../../core/index.js';
import { asFiniteNumber, type BadgeContext } from './context.js';
import type { CostRange } from '../shared/cost-types.js';

/** The bounds of one evaluation. */
export interface BadgeBounds {
  /** The moment (`performance.now()`) past which the evaluation stops. */
  deadline: number;
  /** Most steps (JSONata's evaluate calls). */
  maxSteps: number;
  /** Deepest nesting of steps. */
  maxDepth: number;
  /** Longest sequence (array) an expression may build. */
  maxSequence: number;
  /** Largest result, in characters of its JSON. */
  maxResultChars: number;
}

/** A compiled badge, or why it does not compile. */
export type Compiled = { expression: jsonata.Expression } | { error: string };

// The binding that carries one evaluation's state to the hook: a name no `$variable` can spell.
const STATE = ' graphcloud evaluation';
// Steps between two yields to the event loop: a macrotask (not a wait, nothing to abort), so the
// caller's timers and the time bound's own check get to run while a long expression evaluates.
const YIELD_EVERY = 5_000;

interface EvaluationState {
  bounds: BadgeBounds;
  steps: number;
}

class BoundExceeded extends Error {}

let engine: Promise<typeof jsonata> | undefined;

/** JSONata, imported on first use: an app that estimates nothing never loads it. */
export function loadEngine(): Promise<typeof jsonata> {
  engine ??= import('jsonata').then((module) => (module as unknown as { default: typeof jsonata }).default ?? (module as unknown as typeof jsonata));
  // A failed import (a chunk a page could not fetch) is tried again by the next estimate.
  engine.catch(() => (engine = undefined));
  return engine;
}

/** A RegExp stand-in that refuses every pattern (see the top of this file). */
function NoRegex(): never {
  throw new BoundExceeded('the expression uses a regular expression, which estimates do not run');
}

async function onEntry(_expr: unknown, _input: unknown, environment: { lookup(name: string): unknown }): Promise<void> {
  const state = environment.lookup(STATE) as EvaluationState | undefined;
  if (!state) return;
  state.steps++;
  if (state.steps > state.bounds.maxSteps) throw new BoundExceeded(`the expression took more than ${state.bounds.maxSteps} steps`);
  if (performance.now() > state.bounds.deadline) throw new BoundExceeded('the expression ran past the time bound');
  if (state.steps % YIELD_EVERY === 0) await new Promise((resolve) => setTimeout(resolve, 0));
}

/** Compiles an expression, with the bounds' hook and guardrails; a syntax error is a reason. */
export function compile(engine: typeof jsonata, expr: string, bounds: Pick<BadgeBounds, 'maxDepth' | 'maxSequence'>): Compiled {
  try {
    const expression = engine(expr, { stack: bounds.maxDepth, sequence: bounds.maxSequence, RegexEngine: NoRegex as unknown as RegExpConstructor });
    expression.assign(Symbol.for('jsonata.__evaluate_entry') as unknown as string, onEntry);
    return { expression };
  } catch (error) {
    return { error: `its expression does not compile (${describe(error)})` };
  }
}

/** Evaluates a compiled badge within `bounds`: its result, or why there is none. */
export async function evaluate(expression: jsonata.Expression, context: BadgeContext, bounds: BadgeBounds): Promise<{ result: unknown } | { error: string }> {
  try {
    const result: unknown = await expression.evaluate(context, { [STATE]: { bounds, steps: 0 } satisfies EvaluationState });
    return { result };
  } catch (error) {
    return { error: error instanceof BoundExceeded ? error.message : `its expression failed (${describe(error)})` };
  }
}

function describe(error: unknown): string {
  const code = isRecord(error) ? own(error, 'code') : undefined;
  const message = error instanceof Error ? error.message : isRecord(error) && typeof error.message === 'string' ? error.message : String(error);
  if (code === 'D1011') return 'nested too deeply';
  if (code === 'D2014' || code === 'D2015') return 'a sequence grew too long';
  return `${typeof code === 'string' ? `${code}: ` : ''}${message}`.slice(0, 200);
}

/**
 * A plain JSON copy (as `JSON.parse` would make it) of a result no larger than `maxChars` characters, or `undefined`: a huge
 * result is refused without being serialized whole.
 */
export function boundedCopy(value: unknown, maxChars: number): unknown {
  let budget = maxChars;
  const copy = (item: unknown, depth: number): unknown => {
    if ((budget -= 8) < 0 || depth > 32) throw new BoundExceeded();
    if (typeof item === 'string') {
      if ((budget -= item.length) < 0) throw new BoundExceeded();
      return item;
    }
    if (typeof item === 'number') return Number.isFinite(item) ? item : null;
    if (typeof item === 'boolean' || item === null) return item;
    if (Array.isArray(item)) return item.map((entry) => copy(entry, depth + 1));
    if (isRecord(item)) {
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(item)) {
        if ((budget -= key.length) < 0) throw new BoundExceeded();
        const entry = item[key];
        // Defined, not assigned: a key `__proto__` stays an own property of a plain object, as JSON.parse makes it.
        if (entry !== undefined && typeof entry !== 'function') Object.defineProperty(out, key, { value: copy(entry, depth + 1), enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    return undefined;
  };
  try {
    return copy(value, 0);
  } catch {
    return undefined;
  }
}

/**
 * What a badge's result counts for in a run's total, in US dollars, or why it counts for nothing:
 * `usd` is that price; `range_usd` its range (bounds in either order); `list_usd` the range of its
 * finite values; an object with `usd` and no `type` (the older form) that price. `text`, a rate
 * (a `format.suffix` other than `/Run`), a negative or missing number are reasons.
 */
export function priceOf(result: unknown): CostRange | string {
  if (!isRecord(result)) return 'the badge gave no price';
  const type = own(result, 'type');
  const format = own(result, 'format');
  const suffix = isRecord(format) ? own(format, 'suffix') : undefined;
  if (typeof suffix === 'string' && suffix.trim().toLowerCase() !== '/run') return `the badge gives a rate ("${suffix.trim()}"), not the price of a run`;
  let range: CostRange | undefined;
  if (type === 'usd' || (type === undefined && Object.hasOwn(result, 'usd'))) {
    const usd = asFiniteNumber(own(result, 'usd'));
    if (usd !== null) range = { min: usd, max: usd };
  } else if (type === 'range_usd') {
    const [a, b] = [asFiniteNumber(own(result, 'min_usd')), asFiniteNumber(own(result, 'max_usd'))];
    if (a !== null && b !== null) range = { min: Math.min(a, b), max: Math.max(a, b) };
  } else if (type === 'list_usd') {
    const list = own(result, 'usd');
    const values = Array.isArray(list) ? list.map(asFiniteNumber).filter((value): value is number => value !== null) : [];
    if (values.length > 0) range = { min: Math.min(...values), max: Math.max(...values) };
  } else if (type === 'text') {
    const text = own(result, 'text');
    return `the badge shows text${typeof text === 'string' ? ` ("${text.slice(0, 80)}")` : ''}, not a price`;
  } else {
    return `the badge's result has an unknown type (${JSON.stringify(type) ?? 'none'})`;
  }
  if (!range) return 'the badge gave no finite price';
  if (range.min < 0) return 'the badge gave a negative price';
  return range;
}
