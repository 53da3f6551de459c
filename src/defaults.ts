import { HTTP_DEFAULTS } from './core/defaults.js';
import { CLOUD_DEFAULTS } from './cloud/model/defaults.js';
import { PROXY_DEFAULTS } from './proxy/defaults.js';

/**
 * Every policy constant of the SDK, frozen. The JSDoc `@default` tags and the README's options
 * table refer to these values.
 *
 * @example
 * ```ts
 * import { DEFAULTS } from 'graphcloud';
 * console.log(DEFAULTS.http.timeout); // 60000
 * ```
 */
export const DEFAULTS = Object.freeze({
  http: HTTP_DEFAULTS,
  proxy: PROXY_DEFAULTS,
  cloud: CLOUD_DEFAULTS,
});
