import { Checker, checkIds, type HttpClient, path, redactUrl, REQUEST_RULES, ResponseValidationError, rule, type RequestOptions } from '../core/index.js';
import { body, withOptions } from './checks.js';
import { AvailabilitySchema, CreatedTokenSchema, NodeListSchema, PermissionsSchema, PublisherListSchema, PublisherSchema, TokenListSchema } from './schemas.js';
import type { CreatedToken, CreateTokenParams, Node, PersonalAccessToken, Publisher, PublisherParams, PublisherPermissions } from './types.js';

/**
 * Publishers and their tokens: `registry.publishers`.
 *
 * @example
 * ```ts
 * const [mine] = await registry.publishers.mine();
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
   * @throws `ValidationError` when `id` is not an id.
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
   * Every publisher (`GET /publishers`).
   *
   * @example
   * ```ts
   * const publishers = await registry.publishers.list();
   * ```
   */
  async list(options?: RequestOptions): Promise<Publisher[]> {
    withOptions(new Checker(), options).throwIfInvalid('registry.publishers.list()');
    return this.#http.request({ method: 'GET', path: '/publishers', schema: PublisherListSchema, options });
  }

  /**
   * The publishers the caller belongs to (`GET /users/publishers/`).
   *
   * @example
   * ```ts
   * const mine = await registry.publishers.mine();
   * ```
   */
  async mine(options?: RequestOptions): Promise<Publisher[]> {
    withOptions(new Checker(), options).throwIfInvalid('registry.publishers.mine()');
    return this.#http.request({ method: 'GET', path: '/users/publishers/', schema: PublisherListSchema, options });
  }

  /**
   * One publisher (`GET /publishers/{publisherId}`).
   *
   * @example
   * ```ts
   * const acme = await registry.publishers.get('acme');
   * ```
   */
  async get(publisherId: string, options?: RequestOptions): Promise<Publisher> {
    checkIds('registry.publishers.get()', { publisherId }, withOptions(new Checker(), options));
    return this.#http.request({ method: 'GET', path: path`/publishers/${publisherId}`, schema: PublisherSchema, options });
  }

  /**
   * Updates a publisher's fields (`PUT /publishers/{publisherId}`); owners only.
   *
   * @example
   * ```ts
   * await registry.publishers.update('acme', { description: 'Image tools' });
   * ```
   */
  async update(publisherId: string, params: Partial<PublisherParams>, options?: RequestOptions): Promise<Publisher> {
    checkIds('registry.publishers.update()', { publisherId }, withOptions(body('params', params), options));
    return this.#http.request({ method: 'PUT', path: path`/publishers/${publisherId}`, json: params, schema: PublisherSchema, options });
  }

  /**
   * Deletes a publisher (`DELETE /publishers/{publisherId}`); owners only.
   *
   * @example
   * ```ts
   * await registry.publishers.delete('acme-old');
   * ```
   */
  async delete(publisherId: string, options?: RequestOptions): Promise<void> {
    checkIds('registry.publishers.delete()', { publisherId }, withOptions(new Checker(), options));
    await this.#http.request({ method: 'DELETE', path: path`/publishers/${publisherId}`, options });
  }

  /**
   * Whether a publisher id (a username) is still free (`GET /publishers/validate?username=`).
   * `isAvailable` is optional in the registry's answer: only an explicit `true` is `true`.
   *
   * @example
   * ```ts
   * if (await registry.publishers.isAvailable('acme')) await registry.publishers.create({ id: 'acme' });
   * ```
   */
  async isAvailable(publisherId: string, options?: RequestOptions): Promise<boolean> {
    checkIds('registry.publishers.isAvailable()', { publisherId }, withOptions(new Checker(), options));
    const answer = await this.#http.request({ method: 'GET', path: '/publishers/validate', query: { username: publisherId }, schema: AvailabilitySchema, options });
    return answer.isAvailable === true;
  }

  /**
   * The nodes of a publisher (`GET /publishers/{publisherId}/nodes`).
   *
   * @example
   * ```ts
   * const nodes = await registry.publishers.nodes('acme', { includeBanned: true });
   * ```
   */
  async nodes(publisherId: string, options: RequestOptions & { includeBanned?: boolean | undefined } = {}): Promise<Node[]> {
    checkIds('registry.publishers.nodes()', { publisherId }, withOptions(new Checker(), options, { ...REQUEST_RULES, includeBanned: rule.boolean }));
    const { includeBanned, ...request } = options ?? {};
    return this.#http.request({ method: 'GET', path: path`/publishers/${publisherId}/nodes`, query: { include_banned: includeBanned }, schema: NodeListSchema, options: request });
  }

  /**
   * What the caller may do with a publisher (`GET /publishers/{publisherId}/permissions`).
   *
   * @example
   * ```ts
   * const { canEdit } = await registry.publishers.permissions('acme');
   * ```
   */
  async permissions(publisherId: string, options?: RequestOptions): Promise<PublisherPermissions> {
    checkIds('registry.publishers.permissions()', { publisherId }, withOptions(new Checker(), options));
    return this.#http.request({ method: 'GET', path: path`/publishers/${publisherId}/permissions`, schema: PermissionsSchema, options });
  }

  /**
   * Creates a personal access token (`POST /publishers/{publisherId}/tokens`). The answer holds
   * the secret once: store it. The SDK keeps it out of every error and hook payload.
   *
   * @throws `ResponseValidationError` (`field: 'token'`) when the answer holds no usable secret: the
   * token was created all the same, and the error says how to revoke it (`deleteToken()`, its id
   * from the answer or from `listTokens()`). It is not created again.
   *
   * @example
   * ```ts
   * const { token } = await registry.publishers.createToken('acme', { name: 'ci', description: 'release job' });
   * ```
   */
  async createToken(publisherId: string, params: CreateTokenParams, options?: RequestOptions): Promise<CreatedToken> {
    const check = withOptions(body('params', params), options);
    check.string('params.name', params?.name, { required: true });
    check.string('params.description', params?.description, { allowEmpty: true });
    checkIds('registry.publishers.createToken()', { publisherId }, check);
    const route = path`/publishers/${publisherId}/tokens`;
    const lost = (body: unknown, id: string | undefined, problem: string) => {
      const deleteToken = `registry.publishers.deleteToken('${publisherId}', ${id ? `'${id}'` : 'id'})`;
      const how = id ? deleteToken : `${deleteToken}, its id from registry.publishers.listTokens('${publisherId}')`;
      const note = `token: ${problem}: the token ${JSON.stringify(params.name)} was created, but is useless without its secret (not created again): revoke it with ${how}`;
      return new ResponseValidationError({ field: 'token', problems: [note], body, method: 'POST', url: redactUrl(`${this.#http.baseUrl}${route}`) });
    };
    const answer = await this.#http.request({ method: 'POST', path: route, json: params, schema: CreatedTokenSchema, secretFields: ['token'], options }).catch((error: unknown) => {
      if (!(error instanceof ResponseValidationError)) throw error;
      const body = error.body as { id?: unknown } | undefined;
      throw lost(error.body, typeof body?.id === 'string' && body.id ? body.id : undefined, 'not a string');
    });
    // The answer reaches the error whole: scrubbed of the credential a careless server echoes.
    if (!answer.token) throw lost(this.#http.scrub(answer), answer.id || undefined, 'missing or empty');
    return { token: answer.token };
  }

  /**
   * The publisher's personal access tokens, without their secrets (`GET /publishers/{publisherId}/tokens`).
   *
   * @example
   * ```ts
   * for (const t of await registry.publishers.listTokens('acme')) console.log(t.id, t.name, t.createdAt);
   * ```
   */
  async listTokens(publisherId: string, options?: RequestOptions): Promise<PersonalAccessToken[]> {
    checkIds('registry.publishers.listTokens()', { publisherId }, withOptions(new Checker(), options));
    const tokens = await this.#http.request({ method: 'GET', path: path`/publishers/${publisherId}/tokens`, schema: TokenListSchema, secretFields: ['token'], options });
    // A listing never needs a secret: drop one a server might send anyway.
    return tokens.map(({ token: _secret, ...rest }) => rest);
  }

  /**
   * Revokes a personal access token (`DELETE /publishers/{publisherId}/tokens/{tokenId}`, answered `204`).
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
