// Which workers are connected to a queue, and whether the worker holding a run still is. BullMQ
// names each worker's Redis connections after the worker (CLIENT SETNAME, read back with CLIENT
// LIST: `queue.getWorkers()`) and writes that name on the job it takes (`processedBy`); RunWorker
// gives each of its workers a name of its own. A run whose worker is gone waits for its lock to
// lapse and for the next stalled check of a live worker: that is when it is taken over.
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { QUEUE_DEFAULTS } from './defaults.js';

/**
 * The names of the workers connected to the queue now (`''` for one without a name), or
 * `undefined` where Redis does not list its clients (some managed services refuse CLIENT LIST).
 *
 * @example
 * ```ts
 * const names = await connectedWorkers(queue); // Set { 'w-5d1e2c3a-…' }
 * ```
 */
export async function connectedWorkers(queue: Queue): Promise<Set<string> | undefined> {
  let clients: Record<string, string>[];
  try {
    clients = (await queue.getWorkers()) as Record<string, string>[];
  } catch {
    return undefined;
  }
  const names = new Set<string>();
  for (const client of clients) {
    // BullMQ answers one entry without `rawname` where CLIENT LIST is refused.
    if (typeof client.rawname !== 'string') return undefined;
    const at = client.rawname.indexOf(':w:');
    names.add(at < 0 ? '' : client.rawname.slice(at + 3));
  }
  return names;
}

/**
 * Whether the worker that holds an active run is lost, read in one transaction (the run's place
 * in the active list, its lock's time to live, the name of the worker that took it), then the
 * connected workers (`workers(false)` may answer a list read a moment ago; a holder missing from
 * it is looked for again in a list read now, `workers(true)`, as it may have connected since):
 * `takeoverWithinMs` is the most time before another worker takes it over (the rest of its lock,
 * plus one stalled check at the default interval). `undefined` when the run is not active, or its
 * worker still holds it.
 *
 * @example
 * ```ts
 * const lost = await lostHold(redis, queue, 'order-1234', () => connectedWorkers(queue)); // { takeoverWithinMs: 41_200 }
 * ```
 */
export async function lostHold(redis: Redis, queue: Queue, id: string, workers: (fresh: boolean) => Promise<Set<string> | undefined>): Promise<{ takeoverWithinMs: number } | undefined> {
  const answers = await redis.multi().lpos(queue.toKey('active'), id).pttl(`${queue.toKey(id)}:lock`).hget(queue.toKey(id), 'pb').exec();
  if (!answers || answers.some(([error]) => error)) return undefined;
  const [position, ttl, holder] = answers.map(([, value]) => value as unknown);
  if (position === null || typeof ttl !== 'number') return undefined;
  // -2: no lock left on an active run (its worker stopped renewing it); -1 never happens to a lock.
  const unlocked = ttl === -2;
  const named = typeof holder === 'string' && holder !== '';
  const gone = !unlocked && named && (await workers(false))?.has(holder) === false && (await workers(true))?.has(holder) === false;
  if (!unlocked && !gone) return undefined;
  return { takeoverWithinMs: Math.max(0, ttl) + QUEUE_DEFAULTS.stalledIntervalMs };
}
