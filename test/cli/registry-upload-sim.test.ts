import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegistryClient } from '../../src/index.js';
import { encodePng } from '../../src/testing/index.js';
import { cliEntries, NODE, parseLines, runPiped, startTarget, type SimTarget } from './helpers.js';

let target: SimTarget;
let dir: string;

beforeAll(async () => {
  target = await startTarget();
  dir = mkdtempSync(join(tmpdir(), 'graphcloud-cli-reg-'));
});
afterAll(async () => {
  await target?.sim.close();
  rmSync(dir, { recursive: true, force: true });
});

const run = (args: string[], env: Record<string, string | undefined> = target.env, secrets = target.secrets) => runPiped(args, { env, secrets });

describe('graphcloud registry nodes', () => {
  it('search prints one node per line', async () => {
    const { code, lines } = await run(['registry', 'nodes', 'search', 'image']);
    expect(code).toBe(0);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.map((n) => n.id)).toContain('image-tools');
  });

  it('search prints a table with --human', async () => {
    const { code, stdout } = await run(['registry', 'nodes', 'search', 'image', '--human']);
    expect(code).toBe(0);
    expect(stdout.split('\n')[0]).toMatch(/^ID +LATEST +NAME$/);
    expect(stdout).toMatch(/^image-tools +\S+ +\S/m);
  });

  it('versions lists the versions of a node', async () => {
    const { code, lines } = await run(['registry', 'nodes', 'versions', 'demo-node']);
    expect(code).toBe(0);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((v) => v.node_id === 'demo-node' && typeof v.version === 'string')).toBe(true);
  });

  it('get of an unknown node exits 6 with the registry\'s words', async () => {
    const { code, lines } = await run(['registry', 'nodes', 'get', 'no-such-node']);
    expect(code).toBe(6);
    expect(lines[0]!.message).toMatch(/^The registry found no such thing \(404\)/);
  });

  it('publish creates the version and uploads the package; a refused token is never printed', async () => {
    const registry = new RegistryClient({ baseUrl: target.sim.registryUrl, token: target.sim.token });
    const { token: pat } = await registry.publishers.createToken('demo-publisher', { name: 'cli-test' });
    await registry.close();
    const pkg = join(dir, 'node.zip');
    writeFileSync(pkg, Buffer.from('504b0506000000000000000000000000000000000000', 'hex')); // an empty zip
    const args = (version: string): string[] => ['registry', 'nodes', 'publish', 'demo-node', version, '--publisher', 'demo-publisher', '--package', pkg, '--changelog', 'From the CLI'];
    const ok = await run(args('9.9.9'), { ...target.env, GRAPHCLOUD_REGISTRY_PAT: pat }, [...target.secrets, pat!]);
    expect(ok.code).toBe(0);
    expect(ok.lines[0]).toMatchObject({ type: 'published', nodeId: 'demo-node', version: '9.9.9', changelog: 'From the CLI' });
    // The simulator echoes the request body, token included, when it refuses one.
    const wrong = 'pat_wrong_0123456789abcdef';
    const refused = await run(args('9.9.10'), { ...target.env, GRAPHCLOUD_REGISTRY_PAT: wrong }, [...target.secrets, wrong]);
    expect(refused.code).toBe(6);
    expect(refused.lines[0]!.message).toMatch(/Invalid personal access token/);
  });

  it('publish without a token exits 3 and names the variable', async () => {
    const pkg = join(dir, 'node.zip');
    const { code, lines } = await run(['registry', 'nodes', 'publish', 'demo-node', '1.0.0', '--publisher', 'demo-publisher', '--package', pkg]);
    expect(code).toBe(3);
    expect(lines[0]).toMatchObject({ fix: expect.stringContaining('set GRAPHCLOUD_REGISTRY_PAT') });
  });
});

describe('graphcloud upload', () => {
  it('uploads files and prints the names they got', async () => {
    const a = join(dir, 'a.png');
    writeFileSync(a, encodePng(8, 8, [1, 2, 3]));
    const { code, lines } = await run(['upload', a, a, '--overwrite']);
    expect(code).toBe(0);
    expect(lines).toEqual([
      { type: 'uploaded', file: a, name: 'a.png', subfolder: '', folder: 'input' },
      { type: 'uploaded', file: a, name: 'a.png', subfolder: '', folder: 'input' },
    ]);
    expect(target.sim.state.files('input')).toContain('a.png');
  });

  it('a missing file is a usage error before anything is sent', async () => {
    target.sim.state.clearRequests();
    const { code, lines } = await run(['upload', join(dir, 'missing.png')]);
    expect(code).toBe(2);
    expect(lines[0]!.message).toBe(`Cannot read ${join(dir, 'missing.png')}: no such file.`);
    expect(target.sim.state.requests).toEqual([]);
  });
});

describe('graphcloud sim', () => {
  it.each([
    ['graphcloud sim', 'cli', ['sim'], 'SIGINT'],
    ['graphcloud-sim', 'sim', [], 'SIGTERM'],
  ] as const)('%s prints its URLs and stops on %s with exit 0', async (_name, bin, args, signal) => {
    const entries = await cliEntries();
    const child = spawn(NODE, [entries[bin], ...args, '--json', '--quiet'], { env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.setEncoding('utf8');
    const ready = await new Promise<Record<string, unknown>>((resolve, reject) => {
      child.stdout.on('data', (chunk: string) => {
        stdout += chunk;
        if (stdout.includes('\n')) resolve(parseLines(stdout)[0]!);
      });
      child.on('exit', (code) => reject(new Error(`sim exited with ${code}`)));
    });
    expect(ready).toMatchObject({ type: 'ready', runtime: 'cloud', cloudUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), credentials: { apiKey: 'gcsim_demo_api_key' } });
    const answer = await fetch(`${ready.cloudUrl as string}/api/object_info/LoadImage`, { headers: { 'X-API-Key': 'gcsim_demo_api_key' } });
    expect(answer.status).toBe(200);
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill(signal);
    expect(await exited).toBe(0);
    expect(parseLines(stdout).at(-1)).toEqual({ type: 'stopped' });
  });

  it('refuses a bad port', async () => {
    const { code, lines } = await runPiped(['sim', '--port', 'http']);
    expect(code).toBe(2);
    expect(lines[0]!.message).toBe('--port takes a port number from 0 to 65533, received "http".');
  });
});
