import { NotFoundError, path, type HttpClient, type RequestOptions } from '../../core/index.js';
import { readOutputs } from './outputs.js';
import type { RelayTokens } from './relay-tokens.js';
import { AnyObjectSchema, JobStatusSchema } from './schemas.js';
import { historyStatus, mapJobStatus, type StatusMapping } from './status.js';
import type { JobStatusInfo, NodeOutput } from './types.js';

/**
 * What `JobReader` needs: the transport, and how this deployment answers.
 *
 * @example
 * ```ts
 * const config: JobReaderConfig = { http, runtime: 'auto', outputRoutes: CLOUD_DEFAULTS.outputRoutes };
 * ```
 */
export interface JobReaderConfig {
  http: HttpClient;
  /** `local` reads `/history/{id}`; `auto` switches to it when the status route answers 404. */
  runtime: 'cloud' | 'local' | 'auto';
  statusMap?: Readonly<Record<string, StatusMapping>> | undefined;
  /** Routes asked in order for a finished job's outputs (`{id}` is replaced). */
  outputRoutes: readonly string[];
  /** Tokens of jobs submitted through a relay, sent with their reads. */
  tokens?: RelayTokens | undefined;
}

/**
 * Reads what the server records of a job: its status (the cloud's status route or, on a local
 * runtime, `/history/{id}`) and its outputs (the output routes, in order). The jobs resource and
 * the watcher's fallback polling share one reader, so a runtime detected by one is known to both.
 *
 * @example
 * ```ts
 * const reader = new JobReader({ http, runtime: 'auto', outputRoutes: CLOUD_DEFAULTS.outputRoutes });
 * const { status, terminal } = await reader.status(promptId);
 * ```
 */
export class JobReader {
  readonly #config: JobReaderConfig;
  #runtime: 'cloud' | 'local' | undefined;

  constructor(config: JobReaderConfig) {
    this.#config = config;
    this.#runtime = config.runtime === 'auto' ? undefined : config.runtime;
  }

  /** `local` once detected or configured, `cloud` when configured, `undefined` while unknown. */
  get runtime(): 'cloud' | 'local' | undefined {
    return this.#runtime;
  }

  /** The status of one job, mapped onto the documented values (`raw` keeps the server's). */
  async status(promptId: string, options?: RequestOptions): Promise<JobStatusInfo> {
    const info = await this.#status(promptId, this.#config.tokens?.withToken(promptId, options) ?? options);
    // A failure message is the server's text, and a server may echo the key it received in it.
    if (info.errorMessage) info.errorMessage = this.#config.http.scrub(info.errorMessage);
    return info;
  }

  /**
   * The runtime, found out once when it is not known yet: a status read of an id nobody has
   * (`404` from the status route and an answer from `/history/{id}` is a local runtime; two
   * `404`s the cloud).
   */
  async detect(options?: RequestOptions): Promise<'cloud' | 'local'> {
    if (this.#runtime) return this.#runtime;
    try {
      await this.#status(globalThis.crypto.randomUUID(), options);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
    this.#runtime ??= 'cloud';
    return this.#runtime;
  }

  async #status(promptId: string, options: RequestOptions | undefined): Promise<JobStatusInfo> {
    if (this.#runtime === 'local') return this.#history(promptId, options);
    const { http, statusMap } = this.#config;
    try {
      const body = await http.request({ method: 'GET', path: path`/api/job/${promptId}/status`, schema: JobStatusSchema, options });
      // Only the cloud has the status route (docs/wire-protocol.md#cloud-local-runtimes).
      this.#runtime ??= 'cloud';
      return { promptId, ...mapJobStatus(body.status, statusMap), raw: body.status, errorMessage: body.error_message ?? undefined };
    } catch (error) {
      // A local runtime has no status route (docs/wire-protocol.md#cloud-local-runtimes).
      if (!(error instanceof NotFoundError) || this.#runtime === 'cloud') throw error;
      return this.#history(promptId, options, error);
    }
  }

  /**
   * A finished job's outputs from the first output route that names them; `complete: false`
   * when none did (`404`, `{}`, or an error).
   */
  async outputs(promptId: string, options?: RequestOptions): Promise<{ outputs: Record<string, NodeOutput>; complete: boolean }> {
    const scoped = this.#config.tokens?.withToken(promptId, options) ?? options;
    for (const route of this.#config.outputRoutes) {
      try {
        // The core's retry applies: a transient 5xx must not cost a paid job its outputs; a 404
        // (a route this server lacks) is not retried, and the next route is asked.
        const body = await this.#config.http.request({ method: 'GET', path: route.replaceAll('{id}', encodeURIComponent(promptId)), schema: AnyObjectSchema, options: scoped });
        const outputs = readOutputs(body, promptId);
        if (outputs) return { outputs, complete: true };
      } catch (error) {
        if (options?.signal?.aborted) throw options.signal.reason;
        if (this.#config.http.closed.aborted) throw error;
        // A missing route or a failing one: try the next; the caller reports the outputs as incomplete.
      }
    }
    return { outputs: Object.create(null) as Record<string, NodeOutput>, complete: false };
  }

  async #history(promptId: string, options: RequestOptions | undefined, statusRoute404?: NotFoundError): Promise<JobStatusInfo> {
    let body: Record<string, unknown>;
    try {
      body = await this.#config.http.request({ method: 'GET', path: path`/history/${promptId}`, schema: AnyObjectSchema, options });
    } catch (error) {
      throw statusRoute404 && error instanceof NotFoundError ? statusRoute404 : error;
    }
    // The status route is missing but /history answers: a local runtime.
    this.#runtime ??= 'local';
    return historyStatus(promptId, body, this.#config.statusMap);
  }
}
