import { HTTP_DEFAULTS } from './core/defaults.js';
import { CLOUD_DEFAULTS } from './cloud/model/defaults.js';
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
  http: HTTP_DEFAULTS,
  cloud: CLOUD_DEFAULTS,
  registry: REGISTRY_DEFAULTS,
  proxy: PROXY_DEFAULTS,
});
