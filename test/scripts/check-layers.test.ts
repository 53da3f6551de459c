import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFixture, type Fixture } from './helpers.js';

let fixture: Fixture;
beforeEach(() => {
  fixture = createFixture();
  fixture.write({
    'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true }, include: ['src'] }),
    // Stand-ins for the two packages the rules name.
    'node_modules/ky/package.json': JSON.stringify({ name: 'ky', type: 'module', exports: { default: './index.js' } }),
    'node_modules/ky/index.js': 'export default {};\n',
    'node_modules/ws/package.json': JSON.stringify({ name: 'ws', type: 'module', exports: { import: './wrapper.mjs' } }),
    'node_modules/ws/wrapper.mjs': 'export default class WebSocket {}\n',
  });
});
afterEach(() => fixture.remove());

/** The target layout, every dependency pointing down. */
const LAYERED = {
  'src/index.ts': "export * from './registry/client.js';\nexport * from './cloud/client.js';\n",
  'src/core/http.ts': "import ky from 'ky';\nexport const http = ky;\n",
  'src/registry/client.ts': "import { http } from '../core/http.js';\nexport const registry = http;\n",
  'src/cloud/shared/types.ts': 'export type Job = { id: string };\n',
  'src/cloud/watch/hub.ts': "import type { Job } from '../shared/types.js';\nexport const hub = (job: Job) => job.id;\n",
  'src/cloud/client.ts': "import { hub } from './watch/hub.js';\nimport { http } from '../core/http.js';\nexport const cloud = [hub, http];\n",
  'src/testing/sim.ts': "import ws from 'ws';\nimport { cloud } from '../cloud/client.js';\nexport const sim = [ws, cloud];\n",
};

describe('scripts/check-layers.mjs', () => {
  it('passes the target layout', () => {
    fixture.write(LAYERED);
    const { status, output } = fixture.run('scripts/check-layers.mjs');
    expect(output).toContain('✔ layering: 7 modules of src/');
    expect(status).toBe(0);
  });

  it('says which file imports which, and why not, for each rule', () => {
    fixture.write({
      ...LAYERED,
      'src/registry/client.ts': "import ky from 'ky';\nimport ws from 'ws';\nimport { sim } from '../testing/sim.js';\nimport { proxy } from '../proxy/client.js';\nexport const registry = [ky, ws, sim, proxy];\n",
      'src/proxy/client.ts': 'export const proxy = 1;\n',
      'src/core/http.ts': "import ky from 'ky';\nimport { cloud } from '../cloud/client.js';\nexport const http = [ky, cloud];\n",
      'src/cloud/shared/types.ts': "import { hub } from '../watch/hub.js';\nimport { cloud } from '../client.js';\nexport type Job = { id: string };\nexport const model = [hub, cloud];\n",
      'src/cloud/watch/hub.ts': "import type { Job } from '../shared/types.js';\nimport { cloud } from '../client.js';\nexport const hub = (job: Job) => [job.id, cloud];\n",
    });
    const { status, output } = fixture.run('scripts/check-layers.mjs');
    expect(status).toBe(1);
    expect(output).toContain('src/registry/client.ts imports node_modules/ky/index.js [ky-only-in-core]. Why not: only src/core/ talks to ky');
    expect(output).toContain('src/registry/client.ts imports node_modules/ws/wrapper.mjs [ws-only-in-testing-and-server]');
    expect(output).toMatch(/src\/index\.ts reaches src\/testing\/sim\.ts \[public-entry-reaches-no-tooling\]: src\/index\.ts imports src\/registry\/client\.ts, which imports src\/testing\/sim\.ts/);
    expect(output).toContain('src/core/http.ts imports src/cloud/client.ts [core-imports-only-core]');
    expect(output).toContain('src/cloud/watch/hub.ts imports src/cloud/client.ts [watch-knows-no-client]');
    expect(output).toContain('src/cloud/shared/types.ts imports src/cloud/client.ts [shared-is-the-bottom-of-cloud]');
    expect(output).toContain('src/cloud/shared/types.ts imports src/cloud/watch/hub.ts [shared-is-the-bottom-of-cloud]');
    expect(output).toContain('src/registry/client.ts imports src/proxy/client.ts [clients-are-independent]');
    expect(output).toMatch(/File cycle \[no-file-cycle\]: .*, which imports /);
    expect(output).toMatch(/Folder cycle \[no-folder-cycle\]: src\/cloud → src\/cloud\/\w+ → .*src\/cloud\b/);
  });

  it('finds a cycle between folders that no two files form', () => {
    fixture.write({
      'src/index.ts': "export * from './cloud/client.js';\n",
      'src/cloud/client.ts': "import { hub } from './watch/hub.js';\nexport const cloud = hub;\nexport const name = 'cloud';\n",
      'src/cloud/watch/hub.ts': 'export const hub = 1;\n',
      // The watch folder reaches back into src/cloud through another file: no file cycle.
      'src/cloud/watch/poller.ts': "import { name } from '../names.js';\nexport const poller = name;\n",
      'src/cloud/names.ts': "export const name = 'x';\n",
    });
    const { status, output } = fixture.run('scripts/check-layers.mjs');
    expect(status).toBe(1);
    expect(output).not.toContain('[no-file-cycle]');
    expect(output).toContain('Folder cycle [no-folder-cycle]: src/cloud → src/cloud/watch → src/cloud.');
    expect(output).toContain('src/cloud → src/cloud/watch: src/cloud/client.ts imports src/cloud/watch/hub.ts\n');
    expect(output).toContain('src/cloud/watch → src/cloud: src/cloud/watch/poller.ts imports src/cloud/names.ts\n');
    // The same import also breaks the rule on watch code importing src/cloud/*.ts.
    expect(output).toContain('src/cloud/watch/poller.ts imports src/cloud/names.ts [watch-knows-no-client]');
  });
});
