import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { REPO } from './helpers.js';

const eslint = new ESLint({ cwd: REPO });

async function problems(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((m) => `${m.line}: ${m.ruleId}`);
}

const CODE = [
  'export type Ctor = typeof WebSocket;',
  'export const a = globalThis.WebSocket;',
  "export const b = new WebSocket('wss://x.test/ws');",
  "export const c = globalThis['WebSocket'];",
  'export const d = (options: { WebSocket?: unknown }) => options.WebSocket;',
].join('\n');

describe('eslint: only the watch code touches WebSocket', () => {
  it('refuses the WebSocket global in the rest of src/, and allows a constructor passed in', async () => {
    expect(await problems('src/registry/example.ts', CODE)).toEqual(['2: no-restricted-syntax', '3: no-restricted-globals', '4: no-restricted-syntax']);
  });

  it('allows it in src/cloud/watch/, src/testing/ and src/server/', async () => {
    for (const file of ['src/cloud/watch/socket.ts', 'src/testing/sockets.ts', 'src/server/relay.ts']) {
      expect(await problems(file, CODE)).toEqual([]);
    }
  });

  it('still refuses process.env in library code', async () => {
    expect(await problems('src/registry/example.ts', 'export const key = process.env.KEY;')).toEqual(['1: no-restricted-syntax']);
  });
});
