import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as graphcloud from 'graphcloud';
import * as testing from 'graphcloud/testing';
import * as builtMain from '../../dist/index.js';
import * as builtTesting from '../../dist/testing.js';
import * as sourceMain from '../../src/index.js';

// Every other e2e file imports 'graphcloud' and 'graphcloud/testing': this file proves those
// names reach the build in dist/, not the TypeScript sources (tsconfig `paths` maps them to src
// for the type checker only).
describe("import 'graphcloud' in the e2e tests", () => {
  it('resolves both entry points to dist/ through the package exports', () => {
    const require = createRequire(import.meta.url);
    const root = fileURLToPath(new URL('../../', import.meta.url));
    expect(require.resolve('graphcloud')).toBe(`${root}dist/index.js`);
    expect(require.resolve('graphcloud/testing')).toBe(`${root}dist/testing.js`);
  });

  it('is the very module object of dist/, not of src/', () => {
    expect(graphcloud.RegistryClient).toBe(builtMain.RegistryClient);
    expect(graphcloud.CloudClient).toBe(builtMain.CloudClient);
    expect(graphcloud.ProxyClient).toBe(builtMain.ProxyClient);
    expect(testing.startSimulator).toBe(builtTesting.startSimulator);
    expect(graphcloud.RegistryClient).not.toBe(sourceMain.RegistryClient);
  });

  it('exports the three clients and the error classes the e2e tests rely on', () => {
    for (const name of ['CloudClient', 'ProxyClient', 'RegistryClient', 'JobFailedError', 'TaskFailedError', 'PermissionDeniedError', 'InternalServerError', 'RateLimitError', 'TimeoutError', 'ConnectionError', 'SubscriptionInactiveError']) {
      expect(typeof (graphcloud as Record<string, unknown>)[name], name).toBe('function');
    }
  });
});
