import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFixture, type Fixture } from './helpers.js';

let fixture: Fixture;
beforeEach(() => {
  fixture = createFixture();
  fixture.linkNodeModules();
  // As the real package: modules without side effects, so a bundler drops what an app does not use.
  fixture.write({ 'package.json': JSON.stringify({ type: 'module', sideEffects: false }) });
});
afterEach(() => fixture.remove());

const client = (name: string, body = '') => `export class ${name} { constructor(options) { this.options = options; ${body} } }\n`;

describe('scripts/size.mjs', () => {
  it('prints the table and passes bundles within their budgets', () => {
    fixture.write({
      'dist/index.js': "export * from './registry.js';\nexport * from './cloud.js';\nexport * from './proxy.js';\n",
      'dist/registry.js': client('RegistryClient'),
      'dist/cloud.js': client('CloudClient'),
      'dist/proxy.js': client('ProxyClient'),
      'dist/codegen/index.js': 'export async function generateNodeTypes() { return ""; }\n',
    });
    const { status, output } = fixture.run('scripts/size.mjs');
    expect(output).toContain('| browser bundle | minified, up front | gzip, up front | gzip, lazy | budget (KB gzip) | target (KB gzip) | status |');
    expect(output).toMatch(/\| RegistryClient alone \| [\d.]+ KB \| [\d.]+ KB \| — \| [\d.]+ \| 19 \| within target \|/);
    expect(output).toMatch(/\| ky alone \(dependency floor\) \| [\d.]+ KB \| [\d.]+ KB \|/);
    expect(output).toMatch(/\| graphcloud\/codegen alone \| [\d.]+ KB \| [\d.]+ KB \| — \|/);
    expect(status).toBe(0);
  });

  it('fails a bundle over its budget and one that holds node-only code', () => {
    const noise = randomBytes(40_000).toString('base64');
    fixture.write({
      'dist/index.js': "export * from './registry.js';\nexport * from './cloud.js';\nexport * from './proxy.js';\n",
      'dist/registry.js': `import { readFileSync } from 'node:fs';\n${client('RegistryClient', 'this.read = readFileSync;')}`,
      'dist/cloud.js': `import { startSimulator } from './testing.js';\n${client('CloudClient', 'this.sim = startSimulator;')}`,
      'dist/testing.js': 'export function startSimulator() { return 1; }\n',
      'dist/proxy.js': client('ProxyClient', `this.noise = '${noise}';`),
    });
    const { status, output } = fixture.run('scripts/size.mjs');
    expect(status).toBe(1);
    expect(output).toMatch(/✖ ProxyClient alone: [\d.]+ KB gzip is over its budget of [\d.]+ KB \(target 22 KB\)/);
    expect(output).toContain('✖ CloudClient alone: the browser bundle contains node-only code: dist/testing.js');
    expect(output).toContain('✖ RegistryClient alone: the browser bundle imports node:fs, which browsers do not have');
    // Each bundle is judged on what it holds after tree-shaking, not on what the package holds.
    expect(output).not.toContain('✖ ProxyClient alone: the browser bundle');
    expect(output).not.toContain('✖ RegistryClient alone: the browser bundle contains node-only code');
  });
});
