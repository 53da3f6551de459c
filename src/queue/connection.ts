// Where Redis is, as BullMQ and ioredis take it. Every connection waits through a Redis restart
// (`maxRetriesPerRequest: null`): a run's stored id or result is written late, never dropped.
import { Redis, type RedisOptions } from 'ioredis';
import type { ConnectionOptions } from 'bullmq';
import { isPlainObject, type Checker } from '../core/index.js';
import type { RedisConnection } from './option-types.js';

/**
 * Records on `check` a connection that is neither a `redis://` / `rediss://` URL nor an options object.
 *
 * @example
 * ```ts
 * checkConnection(check, 'options.connection', options.connection);
 * ```
 */
export function checkConnection(check: Checker, path: string, value: unknown): void {
  if (typeof value === 'string') {
    if (!/^rediss?:\/\//.test(value)) check.fail(path, 'a redis:// or rediss:// URL, or { host, port, ... }', value.replace(/\/\/[^@/]*@/, '//***@'));
    return;
  }
  if (!isPlainObject(value)) check.fail(path, 'a redis:// or rediss:// URL, or { host, port, ... }', typeof value);
}

/**
 * The connection as BullMQ takes it.
 *
 * @example
 * ```ts
 * new Queue(name, { connection: bullConnection('redis://127.0.0.1:6379') });
 * ```
 */
export function bullConnection(connection: RedisConnection): ConnectionOptions {
  const base = typeof connection === 'string' ? { url: connection } : { ...connection };
  return { ...base, maxRetriesPerRequest: null } as ConnectionOptions;
}

/**
 * A plain ioredis client for the queue's own keys (cancel requests, pause reason, tombstones).
 *
 * @example
 * ```ts
 * const redis = openRedis({ host: '127.0.0.1', port: 6379 });
 * ```
 */
export function openRedis(connection: RedisConnection): Redis {
  const options: RedisOptions = { maxRetriesPerRequest: null, lazyConnect: false };
  return typeof connection === 'string' ? new Redis(connection, options) : new Redis({ ...(connection as RedisOptions), ...options });
}
