import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFixture, REPO, type Fixture } from './helpers.js';

let fixture: Fixture;
beforeEach(() => {
  fixture = createFixture();
});
afterEach(() => fixture.remove());

const PROTOCOL = '# Wire protocol\n\n## Cloud: binary frames\n## Redirects and credentials\n\n```\n## Not a heading\n```\n';

describe('scripts/check-citations.mjs', () => {
  it('passes a tree that cites docs/wire-protocol.md by existing anchors', () => {
    fixture.write({
      'docs/wire-protocol.md': PROTOCOL,
      'docs/guide.md': 'See [frames](wire-protocol.md#cloud-binary-frames) and [below](#usage).\n\n## Usage\n',
      'src/a.ts': '// type 4 names its prompt; see docs/wire-protocol.md#cloud-binary-frames.\n',
      'README.md': '[Redirects](docs/wire-protocol.md#redirects-and-credentials)\n',
    });
    const { status, output } = fixture.run('scripts/check-citations.mjs');
    expect(output).toContain('✔ citations');
    expect(status).toBe(0);
  });

  it('names file and line of every mention of an internal document', () => {
    fixture.write({
      'docs/wire-protocol.md': PROTOCOL,
      'src/cloud/a.ts': 'const x = 1;\n// wire-facts "Binary frames"\n// see section 4.6 of the interface document\n',
      'examples/b.ts': '// Area C: proxy\n// service-interface.md and the Wire facts\n',
      'README.md': 'Where the interface document says so (sections 4.9).\n',
    });
    const { status, output } = fixture.run('scripts/check-citations.mjs');
    expect(status).toBe(1);
    expect(output).toContain('src/cloud/a.ts:2: "wire-facts"');
    expect(output).toContain('src/cloud/a.ts:3: "section 4.6"');
    expect(output).toContain('src/cloud/a.ts:3: "interface document"');
    expect(output).toContain('examples/b.ts:1: "Area C"');
    expect(output).toContain('examples/b.ts:2: "service-interface"');
    expect(output).toContain('examples/b.ts:2: "Wire facts"');
    expect(output).toContain('README.md:1: "interface document"');
    expect(output).toContain('README.md:1: "sections 4.9"');
    expect(output).toContain('8 citation problem(s)');
  });

  it('refuses an anchor that is not a heading, suggesting the closest one', () => {
    fixture.write({
      'docs/wire-protocol.md': PROTOCOL,
      'src/a.ts': '// docs/wire-protocol.md#cloud-binary-frame\n// docs/wire-protocol.md#not-a-heading\n',
      'docs/guide.md': '[x](./wire-protocol.md#redirects)\n[y](#nowhere)\n',
    });
    const { status, output } = fixture.run('scripts/check-citations.mjs');
    expect(status).toBe(1);
    expect(output).toContain('src/a.ts:1: links docs/wire-protocol.md#cloud-binary-frame, but docs/wire-protocol.md has no heading with that anchor (did you mean #cloud-binary-frames?)');
    // A heading inside a fenced block is not a heading.
    expect(output).toContain('src/a.ts:2: links docs/wire-protocol.md#not-a-heading');
    expect(output).toContain('docs/guide.md:1: links ./wire-protocol.md#redirects');
    expect(output).toContain('docs/guide.md:2: links #nowhere, but docs/guide.md has no heading');
  });

  it('finds every section other code cites in the real docs/wire-protocol.md', () => {
    // The anchors helpers and maintainers cite: a renamed heading breaks every comment citing it.
    const anchors = [
      'authentication',
      'error-bodies',
      'redirects-and-credentials',
      'cloud-submitting-a-workflow',
      'cloud-job-status-vocabularies',
      'cloud-local-runtimes',
      'cloud-websocket-messages-and-their-order',
      'cloud-binary-frames',
      'cloud-outputs-files-and-uploads',
      'cloud-job-control-listing-and-queue',
      'cloud-workflow-formats',
      'registry-routes-parameters-and-answers',
      'media-proxy-submissions-and-envelopes',
      'media-proxy-status-routes-and-terminal-states',
      'media-proxy-limits-checked-before-sending',
    ];
    fixture.write({
      'docs/wire-protocol.md': readFileSync(path.join(REPO, 'docs/wire-protocol.md'), 'utf8'),
      'src/cites.ts': anchors.map((a) => `// docs/wire-protocol.md#${a}`).join('\n'),
    });
    const { status, output } = fixture.run('scripts/check-citations.mjs');
    expect(output).toContain('✔ citations');
    expect(status).toBe(0);
  });
});
