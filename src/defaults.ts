import { HTTP_DEFAULTS } from './core/options.js';
import { CLOUD_DEFAULTS } from './cloud/shared/defaults.js';
import { COST_DEFAULTS } from './cloud/cost/defaults.js';
import { PROXY_DEFAULTS } from './proxy/defaults.js';
import { REGISTRY_DEFAULTS } from './registry/defaults.js';

/**
 * Every policy constant of the SDK, frozen: the one way to read a default. The JSDoc `@default`
 * tags and the README's options table refer to these values.
 *
 * @example
 * ```ts
 * import { DEFAULTS } from 'graphcloud';
 * console.log(DEFAULTS.http.timeout, DEFAULTS.cloud.waitTimeout, DEFAULTS.proxy.wait.poll.maxDelayMs);
 * ```
 */
export const DEFAULTS = Object.freeze({
  /** Timeouts and retries of every client's HTTP requests. */
  http: HTTP_DEFAULTS,
  /** The cloud client and its job watcher: wait deadline, socket, hold, polling, routes. */
  cloud: CLOUD_DEFAULTS,
  /** Cost estimates: credits per dollar, the bounds of a price badge's evaluation. */
  cost: COST_DEFAULTS,
  /** The registry client. */
  registry: REGISTRY_DEFAULTS,
  /** The media proxy client: task waits, status routes, Base64 formats. */
  proxy: PROXY_DEFAULTS,
});
