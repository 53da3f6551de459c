import type { UpgradeHandler } from '../server/router.js';
import type { SocketHub } from './socket-hub.js';
import { cloudUser } from './users.js';

/**
 * Dependencies of the `/ws` upgrade.
 *
 * @example
 * const deps: SocketUpgradeDeps = { runtime: 'cloud', users, hub };
 */
export interface SocketUpgradeDeps {
  runtime: 'cloud' | 'local';
  /** Maps an API key to its user id. */
  users: ReadonlyMap<string, string>;
  hub: SocketHub;
}

/**
 * The cloud's `/ws` upgrade: the faults decide first (header status, failure rules, refused
 * sockets), then the `?token=` API key (a local runtime has no authentication); a refusal is a
 * real HTTP status. See docs/wire-protocol.md#authentication.
 *
 * @example
 * router.upgrade('/ws', socketUpgrade({ runtime: 'cloud', users, hub }));
 */
export function socketUpgrade(deps: SocketUpgradeDeps): UpgradeHandler {
  return ({ req, socket, head, url, faults }) => {
    const refusal = faults.upgradeRefusal();
    if (refusal) return { refuse: refusal };
    const userId = cloudUser(deps.runtime, deps.users, url.searchParams.get('token'));
    if (!userId) return { refuse: { status: 401, body: { message: 'Invalid or missing token' } } };
    return { accept: () => deps.hub.accept(req, socket, head, userId) };
  };
}
