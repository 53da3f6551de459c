import { GraphcloudError } from '../core/index.js';
import type { NodeVersion } from './types.js';

/**
 * `versions.publish()` created the version, then its package could not be uploaded. The version
 * exists: do not publish it again; upload the package again with
 * `registry.versions.uploadPackage(error.signedUrl, pkg)` (the URL expires; publish a new version
 * when it has). `signedUrl` is a capability: it is kept out of the message, `JSON.stringify` and
 * `util.inspect`.
 *
 * @example
 * ```ts
 * catch (e) { if (e instanceof PackageUploadError && e.signedUrl) await registry.versions.uploadPackage(e.signedUrl, './node.zip'); }
 * ```
 */
export class PackageUploadError extends GraphcloudError {
  /** `'PackageUploadError'`: the class, readable in logs and `JSON.stringify` (unlike `instanceof`). */
  override name = 'PackageUploadError';
  /** The version the registry created. */
  readonly version: NodeVersion;
  /**
   * Where to `PUT` the package (`registry.versions.uploadPackage(signedUrl, pkg)`), until it
   * expires; `undefined` when the registry answered without one. Not enumerable: a capability,
   * kept out of logs.
   */
  declare readonly signedUrl: string | undefined;

  constructor(version: NodeVersion, signedUrl: string | undefined, cause?: unknown) {
    const what = signedUrl ? `its package upload failed${cause instanceof Error ? `: ${cause.message}` : ''}; upload it again with registry.versions.uploadPackage(error.signedUrl, package)` : 'the registry answered without an upload URL (signedUrl), so its package could not be uploaded';
    super(`Version ${version.version ?? '(unknown)'} was created, but ${what}. Do not publish it again.`, cause === undefined ? undefined : { cause });
    this.version = version;
    Object.defineProperty(this, 'signedUrl', { value: signedUrl, enumerable: false });
  }
}
