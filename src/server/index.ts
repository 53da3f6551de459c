/**
 * `graphcloud/server`: the relay that lets a browser app use the cloud without the platform key.
 * A web-standard handler (`createRelay`) and its runtime adapters (Node, Deno, Bun). See
 * docs/browser.md.
 *
 * @example
 * ```ts
 * import { createRelay, createNodeHandler } from 'graphcloud/server';
 * const relay = createRelay({ cloudUrl, apiKey, secret, authorize, basePath: '/api/graphcloud' });
 * ```
 *
 * @module graphcloud/server
 */
export { createRelay, type Relay, type RelayUpgrade } from './relay.js';
export { RELAY_DEFAULTS } from './defaults.js';
export { RELAY_DEFAULT_ROUTES, RELAY_ROUTES, type CustomRoute, type RouteName } from './routes.js';
export type { AuthorizeContext, RelayCredential, RelayOptions, RelaySocketOptions, RelayWebSocketConstructor, SubmitBody, SubmitVerdict } from './options.js';
export type { RelayErrorCode } from './answers.js';
export type { RelayPeer, RelaySocket, RelaySocketStats } from './socket-relay.js';
export { JOB_TOKEN_HEADER, TASK_TOKEN_HEADER } from './context.js';
export { createNodeHandler, type NodeRelayHandler } from './node.js';
export { createDenoHandler } from './deno.js';
export { createBunHandler, type BunRelayHandler } from './bun.js';
