/**
 * The user id local runtimes run everything as (they have no authentication).
 *
 * @example
 * job.userId === LOCAL_USER; // in local mode
 */
export const LOCAL_USER = 'local-user';

/**
 * The user behind a cloud API key (`X-API-Key`, or `?token=` on `/ws`); in a local runtime
 * everyone is {@link LOCAL_USER}. See docs/wire-protocol.md#authentication.
 *
 * @example
 * cloudUser('cloud', users, header(req, 'x-api-key')); // 'demo-user', or undefined for a bad key
 */
export function cloudUser(runtime: 'cloud' | 'local', users: ReadonlyMap<string, string>, key: string | null | undefined): string | undefined {
  if (runtime === 'local') return LOCAL_USER;
  return users.get(key ?? '');
}
