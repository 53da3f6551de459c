// A budget across every worker of a queue (docs/queue.md#guarantees-and-how-each-is-kept (guarantee 7)): before a worker
// sends a run it reserves the run's estimate (its maximum) in Redis, in one step that first sums
// what the window spent and what is reserved; the run's end settles the reservation with what it
// spent (its `result.cost`), or with the reservation itself when no price arrived. The worker's
// side (reserveRun, settleRun) is at the end. See docs/cost.md#a-budget-across-workers.
import type { Redis } from 'ioredis';
import { ConnectionError, TimeoutError } from '../core/index.js';
import type { CloudClient } from '../cloud/client.js';
import type { Workflow } from '../cloud/shared/types.js';
import { UnpricedRunError } from './errors.js';
import type { Budget, BudgetStatus, PauseReason } from './types.js';

// Amounts are kept in whole micro-dollars: sums of integers below 2^53 are exact in Lua's doubles.
const MICROS = 1_000_000;
const toMicros = (usd: number): number => Math.ceil(usd * MICROS - 1e-6);

// Sums what the window spent (dropping older entries first) and what is reserved, except `ARGV[1]`'s
// own reservation (a run reserved again after a hand-back or a takeover replaces its reservation).
// Spent entries are members `<micros>:<run id>` of a sorted set scored by when they were settled.
const SUMS = `local function sums(config, spentKey, reservedKey, runId, now)
  local window = tonumber(redis.call('HGET', config, 'windowMs') or '0')
  if window > 0 then redis.call('ZREMRANGEBYSCORE', spentKey, '-inf', '(' .. (now - window)) end
  local spent = 0
  for _, member in ipairs(redis.call('ZRANGE', spentKey, 0, -1)) do spent = spent + tonumber(string.match(member, '^(%d+):')) end
  local reserved = 0
  local all = redis.call('HGETALL', reservedKey)
  for i = 1, #all, 2 do if all[i] ~= runId then reserved = reserved + tonumber(all[i + 1]) end end
  return spent, reserved
end
`;
// KEYS: config, spent, reserved. ARGV: run id, micros, now (ms). Returns 1 reserved, 0 refused, -1 no budget.
const RESERVE = `${SUMS}
local limit = tonumber(redis.call('HGET', KEYS[1], 'micros') or '')
if not limit then return -1 end
local spent, reserved = sums(KEYS[1], KEYS[2], KEYS[3], ARGV[1], tonumber(ARGV[3]))
if spent + reserved + tonumber(ARGV[2]) > limit then return 0 end
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
return 1`;
// KEYS: spent, reserved. ARGV: run id, micros spent (-1: the reservation itself), now (ms). Only
// a run that holds a reservation is counted: settling twice counts once.
const SETTLE = `local held = redis.call('HGET', KEYS[2], ARGV[1])
if not held then return 0 end
redis.call('HDEL', KEYS[2], ARGV[1])
local micros = tonumber(ARGV[2])
if micros < 0 then micros = tonumber(held) end
if micros > 0 then redis.call('ZADD', KEYS[1], ARGV[3], string.format('%.0f', micros) .. ':' .. ARGV[1] .. ':' .. ARGV[3]) end
return 1`;
// KEYS: config, spent, reserved. ARGV: now (ms). Returns { limit, spent, reserved, windowMs } in micros, or nil.
const STATUS = `${SUMS}
local limit = redis.call('HGET', KEYS[1], 'micros')
if not limit then return nil end
local spent, reserved = sums(KEYS[1], KEYS[2], KEYS[3], '', tonumber(ARGV[1]))
return { tonumber(limit), spent, reserved, tonumber(redis.call('HGET', KEYS[1], 'windowMs') or '0') }`;

interface BudgetCommands {
  gcBudgetReserve(config: string, spent: string, reserved: string, runId: string, micros: number, now: number): Promise<number>;
  gcBudgetSettle(spent: string, reserved: string, runId: string, micros: number, now: number): Promise<number>;
  gcBudgetStatus(config: string, spent: string, reserved: string, now: number): Promise<[number, number, number, number] | null>;
}

/**
 * The budget's keys under `<prefix>:<name>:gc:budget`, read and written by Lua scripts (ioredis
 * `defineCommand`: sent once, then called by their hash), each one atomic step.
 *
 * @example
 * ```ts
 * const budget = new RunBudget(redis, 'graphcloud', 'renders');
 * if ((await budget.reserve('order-1234', 0.35)) === 'refused') await pauseForBudget();
 * ```
 */
export class RunBudget {
  readonly #redis: Redis & BudgetCommands;
  readonly #config: string;
  readonly #spent: string;
  readonly #reserved: string;

  constructor(redis: Redis, prefix: string, name: string) {
    const base = `${prefix}:${name}:gc:budget`;
    this.#config = base;
    this.#spent = `${base}:spent`;
    this.#reserved = `${base}:reserved`;
    // Defined once per connection (ioredis keeps them on the instance).
    const commands = redis as Redis & Partial<BudgetCommands>;
    if (commands.gcBudgetReserve === undefined) {
      redis.defineCommand('gcBudgetReserve', { numberOfKeys: 3, lua: RESERVE });
      redis.defineCommand('gcBudgetSettle', { numberOfKeys: 2, lua: SETTLE });
      redis.defineCommand('gcBudgetStatus', { numberOfKeys: 3, lua: STATUS });
    }
    this.#redis = redis as Redis & BudgetCommands;
  }

  /** Sets the budget, or removes it (`null`: reservations still settle, nothing is refused). */
  async set(budget: Budget | null): Promise<void> {
    if (budget === null) {
      await this.#redis.del(this.#config);
      return;
    }
    await this.#redis.hset(this.#config, 'micros', String(Math.floor(budget.usd * MICROS + 1e-6)), 'windowMs', String((budget.windowSeconds ?? 0) * 1000));
  }

  /** Whether a budget is set (read before estimating a run: without one, nothing is estimated). */
  async isSet(): Promise<boolean> {
    return (await this.#redis.exists(this.#config)) === 1;
  }

  /**
   * Reserves `usd` for a run, in one step with the sum of what the window spent and what other runs
   * reserved: `refused` when that would cross the budget (nothing written), `none` without a budget.
   */
  async reserve(runId: string, usd: number): Promise<'reserved' | 'refused' | 'none'> {
    const answer = await this.#redis.gcBudgetReserve(this.#config, this.#spent, this.#reserved, runId, toMicros(usd), Date.now());
    return answer === 1 ? 'reserved' : answer === 0 ? 'refused' : 'none';
  }

  /**
   * Settles a run's reservation: with what it spent in USD, `'reserved'` to count the reservation
   * itself (no price arrived), or `0` to release it (the run was certainly not sent). A run without
   * a reservation is left alone, so settling twice counts once.
   */
  async settle(runId: string, spent: number | 'reserved'): Promise<void> {
    await this.#redis.gcBudgetSettle(this.#spent, this.#reserved, runId, spent === 'reserved' ? -1 : toMicros(spent), Date.now());
  }

  /** Where the budget stands, or `undefined` when none is set. */
  async status(): Promise<BudgetStatus | undefined> {
    const answer = await this.#redis.gcBudgetStatus(this.#config, this.#spent, this.#reserved, Date.now());
    if (!answer) return undefined;
    const [limit, spent, reserved, windowMs] = answer;
    return { limit: limit / MICROS, spent: spent / MICROS, reserved: reserved / MICROS, windowSeconds: windowMs > 0 ? windowMs / 1000 : undefined };
  }
}

/**
 * What the budget needs from its worker.
 *
 * @example
 * ```ts
 * const deps: SpendDeps = { budget, pauseQueue, log: console.log, submitTimeoutMs: 30_000 };
 * ```
 */
export interface SpendDeps {
  budget?: RunBudget | undefined;
  pauseQueue(reason: PauseReason): Promise<void>;
  log(line: string): void;
  submitTimeoutMs: number;
}

/**
 * Before a run is sent: without a budget, `go`; else its estimate's maximum is reserved, or, when
 * that would cross the budget, the queue is paused with the reason `budget` (`over`: the run goes
 * back in line, unsent). `retry` when the estimate could not be read (nothing was sent).
 *
 * @throws {@link UnpricedRunError} when the workflow holds a partner node without a price.
 * @example
 * ```ts
 * if ((await reserveRun(deps, cloud, runId, workflow)) !== 'go') return handBack(job, token, data, undefined);
 * ```
 */
export async function reserveRun(deps: SpendDeps, cloud: CloudClient, runId: string, workflow: Workflow): Promise<'go' | 'over' | 'retry'> {
  const budget = deps.budget;
  if (!budget || !(await budget.isSet())) return 'go';
  let estimate: Awaited<ReturnType<CloudClient['estimateCost']>>;
  try {
    estimate = await cloud.estimateCost(workflow, { validate: false, timeout: deps.submitTimeoutMs, totalTimeout: deps.submitTimeoutMs });
  } catch (error) {
    if (error instanceof ConnectionError || error instanceof TimeoutError) return 'retry';
    throw error;
  }
  if (estimate.unpriced.length > 0) throw new UnpricedRunError(runId, estimate.unpriced.map((node) => `${node.id} (${node.classType}): ${node.reason}`));
  const usd = estimate.usd.max;
  if ((await budget.reserve(runId, usd)) !== 'refused') return 'go';
  const status = await budget.status();
  const standing = status ? `$${round(status.spent)} spent and $${round(status.reserved)} reserved of $${round(status.limit)}` : 'the budget';
  const message = `run ${runId} would cost up to $${round(usd)}, over what is left of the queue's budget (${standing}): raise it with queue.setBudget() or wait for its window, then queue.resume()`;
  await deps.pauseQueue({ kind: 'budget', error: { name: 'BudgetExceededError', message, details: { estimateUsd: usd, ...status } }, runId, at: Date.now() });
  deps.log(`run ${runId}: over the budget; queue paused`);
  return 'over';
}

/**
 * When a run ends: its reservation is settled with what it spent (`result.cost.usd`), or with the
 * reservation itself when no price arrived, or released (`sent` false: certainly never sent). What
 * Redis refuses is logged: the reservation then stays counted (never under-counted).
 *
 * @example
 * ```ts
 * await settleRun(deps, runId, result, true);
 * ```
 */
export async function settleRun(deps: SpendDeps, runId: string, result: unknown, sent: boolean): Promise<void> {
  if (!deps.budget) return;
  const cost = (result as { cost?: { usd?: unknown } } | undefined)?.cost?.usd;
  const spent = !sent ? 0 : typeof cost === 'number' && Number.isFinite(cost) ? cost : 'reserved';
  await deps.budget.settle(runId, spent).catch((error: unknown) => deps.log(`run ${runId}: its budget reservation could not be settled: ${String(error)}`));
}

const round = (usd: number): string => usd.toFixed(2);
