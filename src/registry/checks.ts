import { Checker, checkOptions, isPlainObject, REQUEST_RULES, type OptionRules } from '../core/index.js';

/**
 * A checker holding the problems of a request body: it must be an object (a JSON body of `null`
 * or a string is never what the caller meant, and must not reach the server).
 *
 * @example
 * ```ts
 * checkIds('registry.nodes.update()', { publisherId, nodeId }, body('node', node));
 * ```
 */
export function body(name: string, value: unknown): Checker {
  const check = new Checker();
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
