import type { RequestRecord } from '../types/public.js';

/**
 * Every request the simulator's servers received, in arrival order (`sim.state.requests`).
 *
 * @example
 * const log = new RequestLog();
 * createAreaServer({ ...common, record: log.record });
 * log.filesOriginSawCredentials(); // false
 */
export class RequestLog {
  readonly #entries: RequestRecord[] = [];
  #filesSawCredentials = false;

  /** Appends a request; its record is completed in place once it is answered. */
  readonly record = (entry: RequestRecord): void => {
    this.#entries.push(entry);
    if (entry.area === 'files' && (entry.headers['x-api-key'] !== undefined || entry.headers.authorization !== undefined)) {
      this.#filesSawCredentials = true;
    }
  };

  /** A copy of the requests so far. */
  get entries(): RequestRecord[] {
    return [...this.#entries];
  }

  /** Forgets the requests so far (not whether the files origin ever saw credentials). */
  clear(): void {
    this.#entries.length = 0;
  }

  /** True once the files origin has received an `X-API-Key` or `Authorization` header. */
  filesOriginSawCredentials(): boolean {
    return this.#filesSawCredentials;
  }
}
