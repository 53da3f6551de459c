// The queue's budget in Redis (src/queue/budget.ts), on a real redis-server: reservations race
// from many connections at once and never cross the budget; settling counts once; the window
// forgets what was spent before it.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunQueue } from '../../src/queue/index.js';
import { RunBudget } from '../../src/queue/budget.js';
import { startRedis, type TestRedis } from './redis-server.js';

let redis: TestRedis;
const connections: Redis[] = [];
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  for (const connection of connections) connection.disconnect();
  await redis.stop();
});

/** A budget of a fresh queue name, on a connection of its own. */
function budgetOn(name: string): RunBudget {
  const connection = new Redis(redis.url);
  connections.push(connection);
  return new RunBudget(connection, 'graphcloud', name);
}

describe('RunBudget: reservations in one atomic step', { timeout: 30_000 }, () => {
  it('never crosses the budget when 40 runs on 8 connections race for the last dollars', async () => {
    const name = `b-${globalThis.crypto.randomUUID().slice(0, 8)}`;
    const budgets = Array.from({ length: 8 }, () => budgetOn(name));
    await budgets[0]?.set({ usd: 2 });
    // $0.35 each: 5 fit ($1.75), a 6th would cross ($2.10).
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => budgets[i % 8]?.reserve(`run-${i}`, 0.35)));
    expect(answers.filter((a) => a === 'reserved')).toHaveLength(5);
    expect(answers.filter((a) => a === 'refused')).toHaveLength(35);
    expect(await budgets[3]?.status()).toEqual({ limit: 2, spent: 0, reserved: 1.75, windowSeconds: undefined });
  });

  it('settles with what was spent, or the reservation, or releases it; settling twice counts once', async () => {
    const budget = budgetOn(`b-${globalThis.crypto.randomUUID().slice(0, 8)}`);
    expect(await budget.reserve('a', 1)).toBe('none');
    expect(await budget.status()).toBeUndefined();
    await budget.set({ usd: 3, windowSeconds: 3_600 });
    for (const run of ['a', 'b', 'c']) expect(await budget.reserve(run, 1)).toBe('reserved');
    expect(await budget.reserve('d', 0.01)).toBe('refused');
    // A run reserved again (taken over, handed back) replaces its own reservation.
    expect(await budget.reserve('a', 1)).toBe('reserved');
    await budget.settle('a', 0.25);
    await budget.settle('a', 0.25);
    await budget.settle('b', 'reserved');
    await budget.settle('c', 0);
    expect(await budget.status()).toEqual({ limit: 3, spent: 1.25, reserved: 0, windowSeconds: 3_600 });
    // A charge far above any estimate is counted as it is.
    expect(await budget.reserve('huge', 0)).toBe('reserved');
    await budget.settle('huge', 1e8);
    expect((await budget.status())?.spent).toBe(1e8 + 1.25);
    expect(await budget.reserve('after', 0.01)).toBe('refused');
  });

  it('forgets what was spent before the window', async () => {
    const budget = budgetOn(`b-${globalThis.crypto.randomUUID().slice(0, 8)}`);
    await budget.set({ usd: 1, windowSeconds: 1 });
    await budget.reserve('a', 1);
    await budget.settle('a', 'reserved');
    expect(await budget.reserve('b', 0.5)).toBe('refused');
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await budget.reserve('b', 0.5)).toBe('reserved');
    expect(await budget.status()).toMatchObject({ spent: 0, reserved: 0.5 });
  });
});

describe('queue.setBudget()', { timeout: 30_000 }, () => {
  it('sets, shows and removes the budget, and refuses a bad one before writing', async () => {
    const queue = new RunQueue({ connection: redis.url, name: `b-${globalThis.crypto.randomUUID().slice(0, 8)}` });
    try {
      expect((await queue.status()).budget).toBeUndefined();
      await queue.setBudget({ usd: 12.5, windowSeconds: 86_400 });
      expect((await queue.status()).budget).toEqual({ limit: 12.5, spent: 0, reserved: 0, windowSeconds: 86_400 });
      await expect(queue.setBudget({ usd: -1 })).rejects.toThrow(/budget\.usd/);
      await expect(queue.setBudget({ usd: 1, windowSeconds: 0.5 })).rejects.toThrow(/budget\.windowSeconds/);
      // @ts-expect-error: an unknown option
      await expect(queue.setBudget({ usd: 1, window: 60 })).rejects.toThrow(/budget\.window/);
      // @ts-expect-error: not a budget
      await expect(queue.setBudget(5)).rejects.toThrow(/budget/);
      expect((await queue.status()).budget?.limit).toBe(12.5);
      await queue.setBudget(null);
      expect((await queue.status()).budget).toBeUndefined();
    } finally {
      await queue.close();
    }
  });
});
