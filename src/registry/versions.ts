import { Checker, checkIds, paginate, path, rule, toBlob, ValidationError, withFile } from '../core/index.js';
import type { FileInput, HttpClient, OptionRules, RequestOptions } from '../core/index.js';
import { body, checkParams, positive, statusList, toQuery, withOptions } from './checks.js';
import { REGISTRY_DEFAULTS } from './defaults.js';
import { PackageUploadError } from './errors.js';
import { NodeVersionSchema, PublishAnswerSchema, VersionPageSchema } from './schemas.js';
import type { ListVersionsParams, NodeVersion, PublishVersionParams, VersionPage, VersionUpdateParams } from './types.js';

const LIST_RULES: OptionRules = {
  nodeId: rule.string,
  statuses: statusList,
  page: positive,
  // The registry answers 400 beyond its largest page size (docs/wire-protocol.md#registry-routes-parameters-and-answers).
  pageSize: (check, path, value) => check.integer(path, value, { min: 1, max: REGISTRY_DEFAULTS.maxPageSize }),
  statusReason: rule.string,
  includeStatusReason: rule.boolean,
};

/**
 * Node versions of the registry: `registry.versions`.
 *
 * @example
 * ```ts
 * for await (const version of registry.versions.listAll({ nodeId: 'acme-upscale' })) console.log(version.version);
 * ```
 */
export class VersionsResource {
  readonly #http: HttpClient;

  constructor(http: HttpClient) {
    this.#http = http;
  }

  /**
   * Reads one page of versions (`GET /versions`).
   *
   * @throws `ValidationError` for a page below 1 or a page size outside 1 to 100.
   * @example
   * ```ts
   * const { versions, totalPages } = await registry.versions.list({ statuses: ['NodeVersionStatusFlagged'], pageSize: 50 });
   * ```
   */
  async list(params: ListVersionsParams = {}, options?: RequestOptions): Promise<VersionPage> {
    // Filters are checked like options (after them): a misspelled one must not silently list everything.
    checkParams('registry.versions.list()', params, LIST_RULES, undefined, withOptions(new Checker(), options));
    const query = toQuery(params, LIST_RULES);
    const page = await this.#http.request({ method: 'GET', path: '/versions', query, schema: VersionPageSchema, options });
    return { ...page, versions: page.versions ?? [] };
  }

  /**
   * Every version of every page, fetched lazily: a page is requested when the loop reaches it.
   * Starts at `params.page` (default 1).
   *
   * @example
   * ```ts
   * for await (const v of registry.versions.listAll({ statuses: ['NodeVersionStatusPending'], pageSize: 100 })) {
   *   if (v.version === '1.0.0') break; // no further page is fetched
   * }
   * ```
   */
  listAll(params: ListVersionsParams = {}, options?: RequestOptions): AsyncIterable<NodeVersion> {
    // Checked now, not when the loop starts: a bad filter fails where it was written.
    checkParams('registry.versions.listAll()', params, LIST_RULES, undefined, withOptions(new Checker(), options));
    return paginate((page) => this.list({ ...params, page }, options), (result) => result.versions, params.page ?? 1, params.pageSize);
  }

  /**
   * Updates a version's changelog or deprecation (`PUT .../versions/{versionId}`). `versionId` is the
   * version's `id` (a UUID), not its semantic version.
   *
   * @example
   * ```ts
   * await registry.versions.update('acme', 'acme-upscale', version.id, { deprecated: true });
   * ```
   */
  async update(publisherId: string, nodeId: string, versionId: string, params: VersionUpdateParams, options?: RequestOptions): Promise<NodeVersion> {
    const check = withOptions(body('params', params), options);
    check.string('params.changelog', params?.changelog, { allowEmpty: true });
    check.boolean('params.deprecated', params?.deprecated);
    versionIdOnly(check, nodeId, versionId);
    checkIds('registry.versions.update()', { publisherId, nodeId, versionId }, check);
    return this.#http.request({
      method: 'PUT',
      path: path`/publishers/${publisherId}/nodes/${nodeId}/versions/${versionId}`,
      json: params,
      schema: NodeVersionSchema,
      options,
    });
  }

  /**
   * Unpublishes a version (`DELETE /publishers/{publisherId}/nodes/{nodeId}/versions/{versionId}`).
   * `versionId` is the version's `id` (a UUID), not its semantic version.
   *
   * @example
   * ```ts
   * const { id } = await registry.nodes.version('acme-upscale', '1.2.0');
   * await registry.versions.delete('acme', 'acme-upscale', id!);
   * ```
   */
  async delete(publisherId: string, nodeId: string, versionId: string, options?: RequestOptions): Promise<void> {
    const check = withOptions(new Checker(), options);
    versionIdOnly(check, nodeId, versionId);
    checkIds('registry.versions.delete()', { publisherId, nodeId, versionId }, check);
    await this.#http.request({ method: 'DELETE', path: path`/publishers/${publisherId}/nodes/${nodeId}/versions/${versionId}`, options });
  }

  /**
   * Publishes a version: the POST (the personal access token rides in its body), then the upload
   * of the package (a zip) to the signed URL the registry answers with (`PUT`, no credential,
   * streamed from a file path, never held whole in memory). Resolves with the published version.
   * The package is opened and checked (exists, not empty, a zip) before anything is sent.
   *
   * @throws `PackageUploadError` when the version was created but its package upload failed (or was
   * aborted: `cause` is then the abort reason): it carries the version and the signed URL, so the
   * upload can be retried without publishing twice.
   * @example
   * ```ts
   * const version = await registry.versions.publish('acme', 'acme-upscale', {
   *   node: { name: 'Acme Upscale' },
   *   version: { version: '1.3.0', changelog: 'Faster' },
   *   package: './dist/acme-upscale-1.3.0.zip',
   *   personalAccessToken: process.env.REGISTRY_PAT!,
   * });
   * ```
   */
  async publish(publisherId: string, nodeId: string, params: PublishVersionParams, options?: RequestOptions): Promise<NodeVersion> {
    const check = withOptions(body('params', params), options);
    if (params && typeof params === 'object') {
      body('params.node', params.node, check);
      body('params.version', params.version, check);
      check.string('params.version.version', params.version?.version, { required: true });
      check.required('params.package', params.package);
      // The token is a secret: its value never appears in the error.
      if (typeof params.personalAccessToken !== 'string' || params.personalAccessToken.trim() === '') check.fail('params.personalAccessToken', 'a non-empty personal access token (registry.publishers.createToken())', typeof params.personalAccessToken);
    }
    checkIds('registry.versions.publish()', { publisherId, nodeId }, check);
    // The package is opened by this call and closed before it settles, however it ends.
    return withPackage(params.package, 'params.package', 'registry.versions.publish()', async (pkg) => {
      const token = params.personalAccessToken;
      const answer = await this.#http.request({
        method: 'POST',
        path: path`/publishers/${publisherId}/nodes/${nodeId}/versions`,
        json: { personal_access_token: token, node: { ...params.node, id: params.node.id ?? nodeId }, node_version: params.version },
        schema: PublishAnswerSchema,
        secrets: [token],
        // The version answered reaches the caller whole: a registry that echoes the token is scrubbed.
        scrubAnswer: true,
        options,
      });
      const version: NodeVersion = answer.node_version ?? { version: params.version.version, node_id: nodeId };
      if (!answer.signedUrl) throw new PackageUploadError(version, undefined);
      try {
        await this.#put(answer.signedUrl, pkg, options);
      } catch (error) {
        // Even on an abort: the version exists now, and the error is the only place that says so.
        throw new PackageUploadError(version, answer.signedUrl, error);
      }
      return version;
    });
  }

  /**
   * Uploads a version's package to the signed URL `publish()` received (`PUT`, `application/zip`,
   * no credential): the retry after a `PackageUploadError`.
   *
   * @example
   * ```ts
   * await registry.versions.uploadPackage(error.signedUrl, './dist/acme-upscale-1.3.0.zip');
   * ```
   */
  async uploadPackage(signedUrl: string, pkg: FileInput, options?: RequestOptions): Promise<void> {
    const check = withOptions(new Checker(), options);
    if (typeof signedUrl !== 'string' || !/^https?:\/\//i.test(signedUrl) || !URL.canParse(signedUrl)) check.fail('signedUrl', 'the absolute upload URL of a PackageUploadError', '(not an absolute http(s) URL)');
    check.required('package', pkg);
    check.throwIfInvalid('registry.versions.uploadPackage()');
    await withPackage(pkg, 'package', 'registry.versions.uploadPackage()', (opened) => this.#put(signedUrl, opened, options));
  }

  async #put(signedUrl: string, pkg: Package, options: RequestOptions | undefined): Promise<void> {
    await this.#http.request({
      method: 'PUT',
      path: signedUrl,
      // A file is a new stream on each attempt (its length given, as a signed URL needs it).
      body: pkg.body,
      anonymous: true,
      streamBody: true,
      options: { ...options, headers: { ...options?.headers, ...pkg.headers, 'content-type': 'application/zip' } },
    });
  }
}

const SEMVER = /^v?\d+\.\d+(\.\d+)?([-+][0-9A-Za-z.+-]*)?$/;

// The publisher routes take a version's id (a UUID); a semantic version there is a bare 404 from
// the server, so it is refused first with the way to find the id.
function versionIdOnly(check: Checker, nodeId: string, versionId: unknown): void {
  if (typeof versionId === 'string' && SEMVER.test(versionId)) {
    check.fail('versionId', `the version's id (a UUID), not its semantic version; find it with (await registry.nodes.version(${JSON.stringify(nodeId)}, ${JSON.stringify(versionId)})).id`, versionId);
  }
}

const ZIP_MAGIC = [[0x50, 0x4b, 0x03, 0x04], [0x50, 0x4b, 0x05, 0x06], [0x50, 0x4b, 0x07, 0x08]];

/** A package ready to send: its body for each attempt, and the headers it needs. */
interface Package {
  body: () => Blob | ReadableStream<Uint8Array>;
  headers: Record<string, string>;
}

// Opens the package (a path stays on disk, read as it is sent, and is closed when `use` settles)
// and checks it is a non-empty zip before anything is sent: a version published without its
// package is worse than no version.
async function withPackage<T>(input: FileInput, field: string, context: string, use: (pkg: Package) => Promise<T>): Promise<T> {
  const refuse = (size: number) => {
    throw new ValidationError([{ path: field, rule: 'a zip archive of the node\'s files (a path, Blob or bytes)', received: size === 0 ? '(empty)' : '(not a zip archive)' }], context);
  };
  const isZip = (head: Uint8Array) => ZIP_MAGIC.some((magic) => magic.every((byte, i) => head[i] === byte));
  if (typeof input === 'string') {
    return withFile(input, field, async (file) => {
      if (file.size === 0 || !isZip(await file.head(4))) refuse(file.size);
      return use({ body: () => file.stream(), headers: { 'content-length': String(file.size) } });
    });
  }
  const blob = await toBlob(input, field);
  if (blob.size === 0 || !isZip(new Uint8Array(await blob.slice(0, 4).arrayBuffer()))) refuse(blob.size);
  const zip = blob.type ? blob : blob.slice(0, blob.size, 'application/zip');
  return use({ body: () => zip, headers: {} });
}
