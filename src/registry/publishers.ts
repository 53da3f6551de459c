import { Checker, checkIds, type HttpClient, path, type RequestOptions } from '../core/index.js';
import { body, withOptions } from './checks.js';
import { PublisherSchema } from './schemas.js';
import type { Publisher, PublisherParams } from './types.js';

/**
 * Publishers and their tokens: `registry.publishers`.
 *
 * @example
 * ```ts
 * await registry.publishers.create({ id: 'acme', name: 'Acme' });
 * ```
 */
export class PublishersResource {
  readonly #http: HttpClient;

  constructor(http: HttpClient) {
    this.#http = http;
  }

  /**
   * Creates a publisher (`POST /publishers`). The id is akin to a username and should be lowercase.
   *
   * @throws {ValidationError} when `id` is not an id.
   * @example
   * ```ts
   * const publisher = await registry.publishers.create({ id: 'acme', name: 'Acme', website: 'https://acme.test' });
   * ```
   */
  async create(publisher: PublisherParams, options?: RequestOptions): Promise<Publisher> {
    const check = withOptions(body('publisher', publisher), options);
    check.id('publisher.id', publisher?.id);
    check.throwIfInvalid('registry.publishers.create()');
    return this.#http.request({ method: 'POST', path: '/publishers', json: publisher, schema: PublisherSchema, options });
  }

  /**
   * Revokes a publisher token (`DELETE /publishers/{publisherId}/tokens/{tokenId}`, answered `204`).
   *
   * @example
   * ```ts
   * await registry.publishers.deleteToken('acme', 'tok_123');
   * ```
   */
  async deleteToken(publisherId: string, tokenId: string, options?: RequestOptions): Promise<void> {
    checkIds('registry.publishers.deleteToken()', { publisherId, tokenId }, withOptions(new Checker(), options));
    await this.#http.request({ method: 'DELETE', path: path`/publishers/${publisherId}/tokens/${tokenId}`, options });
  }
}
