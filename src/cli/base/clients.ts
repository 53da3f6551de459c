import { CloudClient, ProxyClient, RegistryClient, type ClientOptions, type RequestEvent, type ResponseEvent } from '../../index.js';
import type { CommandContext } from './command.js';

/**
 * The SDK clients a command uses, configured from flags and the environment. With `--debug`,
 * every request and answer is printed on stderr (the SDK redacts their URLs and headers).
 *
 * @example
 * ```ts
 * await using cloud = createCloud(ctx);
 * ```
 */
export function createCloud(ctx: CommandContext): CloudClient {
  return new CloudClient({ ...ctx.config.cloud(), ...hooks(ctx) });
}

/**
 * A registry client for the command.
 *
 * @example
 * ```ts
 * await using registry = createRegistry(ctx);
 * ```
 */
export function createRegistry(ctx: CommandContext): RegistryClient {
  return new RegistryClient({ ...ctx.config.registry(), ...hooks(ctx) });
}

/**
 * A media proxy client for the command.
 *
 * @example
 * ```ts
 * await using proxy = createProxy(ctx);
 * ```
 */
export function createProxy(ctx: CommandContext): ProxyClient {
  return new ProxyClient({ ...ctx.config.proxy(), ...hooks(ctx) });
}

function hooks(ctx: CommandContext): Pick<ClientOptions, 'onRequest' | 'onResponse'> {
  if (!ctx.debug) return {};
  const dim = (text: string): string => ctx.out.errorStyle('dim', text);
  return {
    onRequest: (e: RequestEvent) => ctx.out.notice(dim(`→ ${e.method} ${e.url}${e.attempt > 1 ? ` (attempt ${e.attempt})` : ''}`)),
    onResponse: (e: ResponseEvent) =>
      ctx.out.notice(dim(`← ${e.status || 'no answer'} ${e.method} ${e.url} ${Math.round(e.durationMs)} ms${e.error ? ` ${e.error}` : ''}${e.retryInMs !== undefined ? `, retry in ${Math.round(e.retryInMs)} ms` : ''}`)),
  };
}
