import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFixture, type Fixture } from './helpers.js';

let fixture: Fixture;
beforeEach(() => {
  fixture = createFixture();
});
afterEach(() => fixture.remove());

const TSCONFIG = JSON.stringify({ compilerOptions: { target: 'ES2023', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } });
const documented = (name: string) => `/**\n * ${name}.\n *\n * @example\n * ${name}();\n */\nexport function ${name}(): void {}\n`;

describe('scripts/check-docs.mjs', () => {
  it('passes when every export of the five entry points has JSDoc with @example', () => {
    fixture.write({
      'tsconfig.json': TSCONFIG,
      'src/index.ts': documented('main'),
      'src/server/index.ts': documented('createThing'),
      'src/queue/index.ts': documented('queueThing'),
      'src/codegen/index.ts': documented('generateThing'),
      'src/testing/index.ts': documented('startThing'),
    });
    const { status, output } = fixture.run('scripts/check-docs.mjs');
    expect(output).toContain('check-docs: OK: 5 exported symbols of src/index.ts, src/server/index.ts, src/queue/index.ts, src/codegen/index.ts, src/testing/index.ts');
    expect(status).toBe(0);
  });

  it('checks the server, queue, codegen and testing entry points too, naming each undocumented export', () => {
    fixture.write({
      'tsconfig.json': TSCONFIG,
      'src/index.ts': documented('main'),
      'src/codegen/index.ts': `export const GENERATED = 1;\n`,
      'src/server/index.ts': `/** Creates a thing, with no example. */\nexport function createThing(): void {}\n`,
      'src/queue/index.ts': `export const QUEUED = 1;\n`,
      'src/testing/index.ts': `export const SIM = 1;\n`,
    });
    const { status, output } = fixture.run('scripts/check-docs.mjs');
    expect(status).toBe(1);
    expect(output).toContain('QUEUED (src/queue/index.ts:1): no JSDoc');
    expect(output).toContain('createThing (src/server/index.ts:2): no @example in its JSDoc');
    expect(output).toContain('SIM (src/testing/index.ts:1): no JSDoc');
    expect(output).toContain('GENERATED (src/codegen/index.ts:1): no JSDoc');
  });

  it('checks only the entries it is given', () => {
    fixture.write({
      'tsconfig.json': TSCONFIG,
      'src/index.ts': documented('main'),
      'src/server/index.ts': `export function createThing(): void {}\n`,
    });
    const { status, output } = fixture.run('scripts/check-docs.mjs', ['src/index.ts']);
    expect(output).toContain('check-docs: OK: 1 exported symbols of src/index.ts');
    expect(status).toBe(0);
  });
});
