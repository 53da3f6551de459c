// `graphcloud batch` piped (JSON lines), against the simulator: every set runs once, each one's
// outputs in its own folder, at most --concurrency at once; a mistake in the sets file names its
// line and column, and nothing is sent.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodePng } from '../../src/testing/index.js';
import { runPiped, scaleWorkflow, startTarget, type SimTarget } from './helpers.js';

let target: SimTarget;
let dir: string;
let counter = 0;

beforeAll(async () => {
  target = await startTarget();
  dir = mkdtempSync(join(tmpdir(), 'graphcloud-cli-batch-'));
  mkdirSync(join(dir, 'images'));
  for (const [name, colour] of [['a.png', [200, 10, 10]], ['b.png', [10, 200, 10]], ['c.png', [10, 10, 200]]] as const) writeFileSync(join(dir, 'images', name), encodePng(32, 24, [...colour]));
});
afterAll(async () => {
  await target?.sim.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Writes a workflow file and a sets file next to it; every call gets its own prefix (no run is served from the cache). */
function files(sets: string, extension: 'csv' | 'jsonl'): { workflow: string; sets: string; prefix: string } {
  const prefix = `batch${++counter}`;
  const workflow = join(dir, `${prefix}.json`);
  writeFileSync(workflow, JSON.stringify(scaleWorkflow('placeholder.png', prefix, 64)));
  const path = join(dir, `${prefix}.${extension}`);
  writeFileSync(path, sets);
  return { workflow, sets: path, prefix };
}

const run = (args: string[]) => runPiped(['batch', ...args], { env: target.env, secrets: target.secrets });
const posts = () => target.sim.state.requests.filter((r) => r.method === 'POST');

describe('graphcloud batch (piped: JSON lines)', () => {
  it('uploads a file that every set names once, and a file of other bytes once more (issue 30)', async () => {
    const lines = Array.from({ length: 12 }, (_, i) => JSON.stringify({ '@Load Image.image': i === 11 ? 'images/b.png' : 'images/a.png', 'Scale.width': 30 + i }));
    const { workflow, sets } = files(lines.join('\n'), 'jsonl');
    const before = posts().filter((r) => r.path === '/api/upload/image').length;
    const { code } = await run([workflow, '--inputs', sets]);
    expect(code).toBe(0);
    expect(posts().filter((r) => r.path === '/api/upload/image').length - before).toBe(2);
  });

  it('runs every set of a CSV file once and saves each one\'s outputs in a folder of its own', async () => {
    const { workflow, sets } = files('@Load Image.image,Scale.width\nimages/a.png,40\nimages/b.png,50\n"images/c.png",60\n', 'csv');
    const out = join(dir, 'out-csv');
    const jobsBefore = target.sim.state.jobs().length;
    const { code, lines, stderr } = await run([workflow, '--inputs', sets, '--out', out]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(lines[0]).toEqual({ type: 'batch', sets: 3, concurrency: 4 });
    const results = lines.filter((l) => l.type === 'result');
    expect(results.map((r) => [r.set, r.line, r.status]).sort()).toEqual([[1, 2, 'done'], [2, 3, 'done'], [3, 4, 'done']]);
    expect(lines.at(-1)).toMatchObject({ type: 'summary', total: 3, done: 3, failed: 0, cancelled: 0 });
    // One job per set, each with the width its line set.
    const jobs = target.sim.state.jobs().slice(jobsBefore);
    expect(jobs).toHaveLength(3);
    expect(readdirSync(out).sort()).toEqual(['1', '2', '3']);
    for (const set of ['1', '2', '3']) expect(readdirSync(join(out, set))).toHaveLength(1);
    const submitted = new Map(lines.filter((l) => l.type === 'submitted').map((l) => [l.set, l.promptId]));
    expect(new Set(submitted.values()).size).toBe(3);
    for (const result of results) {
      expect(result.promptId).toBe(submitted.get(result.set));
      expect(result.saved).toEqual([{ nodeId: '3', filename: expect.stringMatching(/\.png$/), path: expect.stringContaining(join(out, String(result.set))) }]);
    }
  });

  it('runs JSON Lines sets, never more than --concurrency at once, in the order of the file', async () => {
    const lines = Array.from({ length: 6 }, (_, i) => JSON.stringify({ '@1.image': `images/${'abc'[i % 3]}.png`, 'Scale.width': 30 + i }));
    const { workflow, sets } = files(`${lines.join('\n')}\n`, 'jsonl');
    const { code, lines: out } = await run([workflow, '--inputs', sets, '--concurrency', '2']);
    expect(code).toBe(0);
    // Sets start in the file's order, two at a time: set n is sent only once n - 2 sets ended
    // (which two ended first, and which of two running sets is accepted first, may vary).
    let ended = 0;
    let running = 0;
    for (const line of out) {
      if (line.type === 'submitted') {
        running += 1;
        expect(running).toBeLessThanOrEqual(2);
        expect(ended).toBeGreaterThanOrEqual((line.set as number) - 2);
      }
      if (line.type === 'result') {
        running -= 1;
        ended += 1;
      }
    }
    expect(out.filter((l) => l.type === 'submitted').map((l) => l.set).sort()).toEqual([1, 2, 3, 4, 5, 6]);
    // Without --out, a result lists the outputs so that a script can fetch them.
    expect(out.find((l) => l.type === 'result')).toMatchObject({ status: 'done', outputs: { '3': { images: [expect.objectContaining({ type: 'output' })] } } });
  });

  it('a set that fails is reported with its line; the others run; exit 1', async () => {
    const { workflow, sets } = files('{"@1.image": "images/a.png"}\n{"1.image": "nowhere.png"}\n{"@1.image": "images/b.png"}\n', 'jsonl');
    const { code, lines } = await run([workflow, '--inputs', sets, '--skip-validation', '--concurrency', '1']);
    expect(code).toBe(1);
    expect(lines.filter((l) => l.type === 'result').map((l) => l.status)).toEqual(['done', 'failed', 'done']);
    expect(lines.find((l) => l.type === 'result' && l.status === 'failed')).toMatchObject({ set: 2, line: 2, error: expect.stringContaining('nowhere.png') });
    expect(lines.at(-1)).toMatchObject({ type: 'summary', total: 3, done: 2, failed: 1 });
  });

  it.each([
    ['a value of the wrong type', 'csv', 'Scale.width,@1.image\n40,images/a.png\n41,images/a.png\nwide,images/a.png\n', 'line 4, column 1: Scale.width takes a number (it is 64 in the workflow), received "wide".'],
    ['an address naming no input', 'jsonl', '{"@1.image": "images/a.png", "Scale.widht": 3}\n', 'line 1, column 30: input address "Scale.widht": node 2 (ImageScale) has no input "widht".'],
    ['a file that is not there', 'csv', '@1.image\nimages/a.png\nimages/none.png\n', 'line 3, column 1: cannot read <dir>/images/none.png: no such file.'],
    ['a value the node definitions refuse', 'jsonl', '{"@1.image": "images/a.png"}\n{"@1.image": "images/a.png", "Scale.upscale_method": "sharpest"}\n', 'line 2, column 30: set 2 does not match the server\'s node definitions:\n  - node 2 input upscale_method (column 30): one of'],
    ['a line that is not JSON', 'jsonl', '{"@1.image": "images/a.png"}\n{"@1.image": "images/a.png",}\n', 'line 2, column 29: expected a key in double quotes, found "}".'],
  ] as const)('%s fails before anything is sent, naming the line and column (exit 2)', async (_what, extension, text, message) => {
    const { workflow, sets } = files(text, extension);
    target.sim.state.clearRequests();
    const { code, lines } = await run([workflow, '--inputs', sets]);
    expect(code).toBe(2);
    expect(lines.at(-1)).toMatchObject({ type: 'error', exitCode: 2, message: expect.stringContaining(`${sets} ${message.replace('<dir>', dir)}`) });
    expect(posts()).toEqual([]);
  });

  it('refuses a missing --inputs, an unknown format and a bad --concurrency (exit 2)', async () => {
    const { workflow, sets } = files('{"Scale.width": 10}\n', 'jsonl');
    const missing = await run([workflow]);
    expect(missing.lines.at(-1)).toMatchObject({ exitCode: 2, message: '--inputs <file> is required: a .jsonl or .csv file of input sets.' });
    const other = await run([workflow, '--inputs', workflow]);
    expect(other.lines.at(-1)).toMatchObject({ exitCode: 2, message: `--inputs takes a .jsonl, .ndjson or .csv file, received "${workflow}".` });
    const zero = await run([workflow, '--inputs', sets, '--concurrency', '0']);
    expect(zero.lines.at(-1)).toMatchObject({ exitCode: 2, message: '--concurrency takes a whole number from 1 to 256, received "0".' });
  });
});
