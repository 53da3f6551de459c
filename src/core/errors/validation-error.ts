import { GraphcloudError } from './graphcloud-error.js';

/**
 * One rule an argument broke.
 * @example
 * ```ts
 * catch (error) { if (error instanceof ValidationError) for (const i of error.issues) console.log(i.path, i.rule, i.received); }
 * ```
 */
export interface ValidationIssue {
  /** Dotted path of the field, e.g. `advanced_settings.contrast` or `image_settings[1].key_image`. */
  path: string;
  /** The rule that failed, e.g. `integer 0..100`, `one of: 2x, 4x`, `required`. */
  rule: string;
  /** The value received (long strings are shortened). */
  received: unknown;
}

/**
 * Bad arguments caught before any request was sent: nothing was sent, nothing was paid.
 * Lists every broken rule at once.
 *
 * @example
 * ```ts
 * try { await registry.nodes.review('my-node', 6); }
 * catch (error) { if (error instanceof ValidationError) console.log(error.issues); }
 * ```
 */
export class ValidationError extends GraphcloudError {
  /** `'ValidationError'`: the class, readable in logs and `JSON.stringify` (unlike `instanceof`); subclasses have their own. */
  override name = 'ValidationError';
  /** Every rule the arguments broke, at least one; long string values are shortened in `received`. */
  readonly issues: ValidationIssue[];

  constructor(issues: ValidationIssue[], context?: string) {
    const lines = issues.map((i) => `  - ${i.path}: expected ${i.rule}, received ${describe(i.received)}`);
    super(`${context ? `${context}: ` : ''}${issues.length} invalid argument${issues.length === 1 ? '' : 's'}; nothing was sent\n${lines.join('\n')}`);
    this.issues = issues.map((i) => ({ ...i, received: shorten(i.received) }));
  }
}

function shorten(value: unknown): unknown {
  return typeof value === 'string' && value.length > 80 ? `${value.slice(0, 40)}… (${value.length} chars)` : value;
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return JSON.stringify(shorten(value));
  try {
    const text = JSON.stringify(value) ?? String(value);
    return text.length > 80 ? `${text.slice(0, 77)}...` : text;
  } catch {
    return typeof value;
  }
}
