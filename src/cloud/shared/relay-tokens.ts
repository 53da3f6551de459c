import type { RequestOptions } from '../../core/index.js';

/**
 * Header of a job's token on the job-scoped routes of a relay (`graphcloud/server`).
 *
 * @example
 * ```ts
 * fetch(url, { headers: { [JOB_TOKEN_HEADER]: token } });
 * ```
 */
export const JOB_TOKEN_HEADER = 'x-graphcloud-job-token';

// A token is about 150 characters; the map keeps the jobs of a long session, not of every session.
const MAX_TOKEN_LENGTH = 4_096;
const MAX_JOBS = 1_000;

/**
 * The tokens a relay gave for the jobs submitted through it (`relay_token` of the submit answer),
 * by prompt id: a small bounded map (the oldest job goes first). A client talking to the cloud
 * directly never gets one, and sends nothing more. See docs/browser.md.
 *
 * @example
 * ```ts
 * tokens.set(answer.prompt_id, answer.relay_token);
 * await http.request({ method: 'GET', path, options: tokens.withToken(promptId, options) });
 * ```
 */
export class RelayTokens {
  readonly #tokens = new Map<string, string>();

  /** Remembers a job's token; anything but a non-empty string is ignored. */
  set(promptId: string, token: unknown): void {
    if (typeof token !== 'string' || token === '' || token.length > MAX_TOKEN_LENGTH) return;
    this.#tokens.delete(promptId);
    this.#tokens.set(promptId, token);
    if (this.#tokens.size > MAX_JOBS) this.#tokens.delete(this.#tokens.keys().next().value as string);
  }

  /** A job's token, when a relay gave one. */
  get(promptId: string): string | undefined {
    return this.#tokens.get(promptId);
  }

  /** The options of a job-scoped request: the caller's, with the job's token header when there is one. */
  withToken(promptId: string, options: RequestOptions | undefined): RequestOptions | undefined {
    const token = this.#tokens.get(promptId);
    if (token === undefined) return options;
    return { ...options, headers: { ...options?.headers, [JOB_TOKEN_HEADER]: token } };
  }

  /** The socket message that asks a relay for a job's messages, when the job has a token. */
  subscription(promptId: string): string | undefined {
    const token = this.#tokens.get(promptId);
    return token === undefined ? undefined : JSON.stringify({ type: 'graphcloud_subscribe', data: { token } });
  }
}
