import { Checker, checkOptions, isPlainObject, REQUEST_RULES, rule, type OptionRules, type QueryValue, type Rule } from '../core/index.js';
import { NODE_VERSION_STATUSES } from './types.js';

/**
 * A checker (`check`, or a new one) holding the problems of a request body: it must be an object
 * (a JSON body of `null` or a string is never what the caller meant, and must not reach the server).
 *
 * @example
 * ```ts
 * checkIds('registry.nodes.update()', { publisherId, nodeId }, body('node', node));
 * ```
 */
export function body(name: string, value: unknown, check = new Checker()): Checker {
  if (!isPlainObject(value)) check.fail(name, 'an object of the fields to send', value);
  return check;
}

/**
 * Adds the problems of a method's options to `check` (the request options unless `rules` says more).
 *
 * @example
 * ```ts
 * checkIds('registry.nodes.delete()', { publisherId, nodeId }, withOptions(new Checker(), options));
 * ```
 */
export function withOptions(check: Checker, options: unknown, rules: OptionRules = REQUEST_RULES): Checker {
  checkOptions(check, 'options', options, rules);
  return check;
}

/**
 * Checks a method's filters (an unknown filter is refused, like an unknown option) and options,
 * and throws when anything is wrong.
 *
 * @example
 * ```ts
 * checkParams('registry.nodes.list()', params, LIST_NODES_RULES, options);
 * ```
 */
export function checkParams(context: string, params: unknown, rules: OptionRules, options: unknown, check = new Checker()): void {
  checkOptions(check, 'params', params, rules);
  withOptions(check, options);
  check.throwIfInvalid(context);
}

/** A whole number of at least 1 (a page, a page size). */
export const positive: Rule = (check, path, value) => check.integer(path, value, { min: 1 });

// An array (`what` otherwise), each item required and checked by `each`.
const listOf = (what: string, each: Rule): Rule => (check, path, value) => {
  if (value === undefined) return;
  if (!Array.isArray(value)) return check.fail(path, what, value);
  value.forEach((item: unknown, i) => each(check, `${path}[${i}]`, item));
};

/** A list of non-empty strings (repeated query values). */
export const stringList = listOf('an array of strings', (check, path, item) => check.string(path, item, { required: true }));

/**
 * A list of version statuses to filter by, each one of the registry's enum (`NODE_VERSION_STATUSES`):
 * a misspelled status must not reach the server, like any other bad argument.
 */
export const statusList = listOf(`an array of version statuses (${NODE_VERSION_STATUSES.join(', ')})`, (check, path, item) =>
  check.oneOf(path, item, NODE_VERSION_STATUSES, { required: true }),
);

const PAGING: OptionRules = { page: positive, limit: positive };
// The hosts a node supports, and banned nodes (both listings).
const HOST: OptionRules = { supportedOs: rule.string, supportedAccelerator: rule.string, includeBanned: rule.boolean };

/** Filters of `nodes.list()`. */
export const LIST_NODES_RULES: OptionRules = {
  ...PAGING,
  ...HOST,
  latest: rule.boolean,
  sort: (check, path, value) => (typeof value === 'string' ? check.string(path, value) : stringList(check, path, value)),
  nodeIds: stringList,
};

/** Filters of `nodes.search()`. */
export const SEARCH_NODES_RULES: OptionRules = {
  ...PAGING,
  search: rule.string,
  repositoryUrlSearch: rule.string,
  graphNodeSearch: rule.string,
  ...HOST,
};

/** Filters of `nodes.versions()`. */
export const NODE_VERSIONS_RULES: OptionRules = { statuses: statusList, includeStatusReason: rule.boolean };

// The wire's query names of the filters, where they differ from the SDK's camelCase
// (docs/wire-protocol.md#registry-routes-parameters-and-answers).
const WIRE_NAMES: Readonly<Record<string, string>> = {
  supportedOs: 'supported_os',
  supportedAccelerator: 'supported_accelerator',
  includeBanned: 'include_banned',
  nodeIds: 'node_id',
  repositoryUrlSearch: 'repository_url_search',
  graphNodeSearch: 'comfy_node_search',
  statusReason: 'status_reason',
  includeStatusReason: 'include_status_reason',
};

/**
 * The query of a listing: each filter of `rules` (in their order) under its wire name.
 *
 * @example
 * ```ts
 * toQuery({ supportedOs: 'linux' }, LIST_NODES_RULES); // { page: undefined, ..., supported_os: 'linux', ... }
 * ```
 */
export function toQuery(params: object, rules: OptionRules): Record<string, QueryValue> {
  const given = params as Record<string, QueryValue>;
  return Object.fromEntries(Object.keys(rules).map((name) => [WIRE_NAMES[name] ?? name, given[name]]));
}
