/**
 * Policies of the registry client, frozen (read them as `DEFAULTS.registry`).
 *
 * @example
 * ```ts
 * await registry.versions.list({ pageSize: DEFAULTS.registry.maxPageSize });
 * ```
 */
export const REGISTRY_DEFAULTS = Object.freeze({
  /** Largest `pageSize` of `versions.list()`: the registry answers `400` beyond it. */
  maxPageSize: 100,
});
