declare const __GRAPHCLOUD_VERSION__: string | undefined;

/**
 * The package version, written in by the build (`tsup.config.ts` defines it from package.json);
 * `0.0.0-dev` when the sources run unbuilt.
 *
 * @example
 * ```ts
 * console.log(`graphcloud ${VERSION}`);
 * ```
 */
export const VERSION: string = typeof __GRAPHCLOUD_VERSION__ === 'string' ? __GRAPHCLOUD_VERSION__ : '0.0.0-dev';
