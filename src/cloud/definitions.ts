// The server's node definitions, the public resource (`cloud.nodes`). The one copy a client keeps
// to convert and check workflows before sending them is submit.ts's `DefinitionCache`.
import { assertOptions, Checker, checkOptions, path, REQUEST_RULES, type HttpClient, type RequestOptions } from '../core/index.js';
import { readObjectInfo } from './workflow/node-definitions.js';
import { AnyObjectSchema } from './shared/wire.js';
import type { DefinitionCache } from './submit.js';
import type { NodeDefinition, ObjectInfo } from './workflow/validate.js';

/**
 * The server's node definitions: `cloud.nodes`. The client keeps the last list it fetched to
 * check workflows before sending them (`validate`); `list()` refreshes it.
 *
 * @example
 * ```ts
 * const info = await cloud.nodes.list();
 * const sampler = await cloud.nodes.get('KSampler');
 * ```
 */
export class NodeDefinitionsResource {
  readonly #http: HttpClient;
  readonly #definitions: DefinitionCache;

  /** @internal Built by `CloudClient` (use `cloud.nodes`). */
  constructor(http: HttpClient, definitions: DefinitionCache) {
    this.#http = http;
    this.#definitions = definitions;
  }

  /**
   * Every node definition (`GET /api/object_info`), by node type name. Refreshes the copy the
   * client checks workflows against.
   *
   * @example
   * ```ts
   * const info = await cloud.nodes.list();
   * console.log(Object.keys(info).length, info.KSampler?.input.required?.steps);
   * ```
   */
  async list(options?: RequestOptions): Promise<ObjectInfo> {
    assertOptions('cloud.nodes.list()', options, REQUEST_RULES);
    return this.#definitions.refresh(options);
  }

  /**
   * One node type's definition (`GET /api/object_info/{classType}`), or `undefined` when the
   * server has no such node type.
   *
   * @example
   * ```ts
   * const def = await cloud.nodes.get('KSampler');
   * if (!def) console.log('KSampler is not installed');
   * ```
   */
  async get(classType: string, options?: RequestOptions): Promise<NodeDefinition | undefined> {
    const check = new Checker();
    check.id('classType', classType);
    checkOptions(check, 'options', options, REQUEST_RULES);
    check.throwIfInvalid('cloud.nodes.get()');
    const info = readObjectInfo(await this.#http.request({ method: 'GET', path: path`/api/object_info/${classType}`, schema: AnyObjectSchema, options }));
    return Object.hasOwn(info, classType) ? info[classType] : undefined;
  }
}
