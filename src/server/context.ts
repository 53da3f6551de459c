import type { RelayConfig } from './config.js';
import type { OutputIndex } from './output-index.js';
import type { RouteMatch } from './routes.js';
import type { TokenSigner } from './tokens.js';
import type { UpstreamClient } from './upstream.js';
import type { ViewHosts } from './view-hosts.js';

/**
 * What the relay's route handlers share: the checked options, the upstream caller, the token
 * signer and the index of job outputs.
 *
 * @example
 * ```ts
 * const ctx: RelayContext = { config, upstream, signer, outputs, viewHosts };
 * ```
 */
export interface RelayContext {
  config: RelayConfig;
  upstream: UpstreamClient;
  signer: TokenSigner;
  outputs: OutputIndex;
  viewHosts: ViewHosts;
}

/**
 * One request being handled: the request, its parsed URL and its route.
 *
 * @example
 * ```ts
 * const call: RelayCall = { request, url: new URL(request.url), match };
 * ```
 */
export interface RelayCall {
  request: Request;
  url: URL;
  match: RouteMatch;
}

// One name for the header on both sides: the SDK sends it, the relay reads it.
export { JOB_TOKEN_HEADER } from '../cloud/shared/wire.js';

/**
 * Header of the token of a media task (`relay_token` of its submission answer), on its status route.
 *
 * @example
 * ```ts
 * proxy.waitForTask(task, { headers: { [TASK_TOKEN_HEADER]: (task.raw as { relay_token: string }).relay_token } });
 * ```
 */
export const TASK_TOKEN_HEADER = 'x-graphcloud-task-token';
