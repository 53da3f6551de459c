import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildParams } from '../../src/cli/commands/task.js';
import { encodePng } from '../../src/testing/index.js';
import { runPiped, startTarget, type SimTarget } from './helpers.js';

let target: SimTarget;
let dir: string;
let image: string;

beforeAll(async () => {
  target = await startTarget({ taskDurationMs: 400 });
  dir = mkdtempSync(join(tmpdir(), 'graphcloud-cli-task-'));
  image = join(dir, 'small.png');
  writeFileSync(image, encodePng(40, 30, [10, 200, 90]));
});
afterAll(async () => {
  await target?.sim.close();
  rmSync(dir, { recursive: true, force: true });
});

const run = (args: string[], env: Record<string, string | undefined> = target.env) => runPiped(args, { env, secrets: target.secrets });

describe('graphcloud task <kind>', () => {
  it('submits, prints the task id at once, waits with status lines, and downloads the result', async () => {
    const out = join(dir, 'out');
    const { code, lines, stderr } = await run(['task', 'upscale', '--param', `image=@${image}`, '--param', 'scale_factor=4x', '--param', 'creativity=2', '--wait', '--out', out]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const taskId = lines[0]!.taskId as string;
    expect(lines[0]).toEqual({ type: 'submitted', kind: 'upscale', taskId: expect.any(String) });
    expect(lines.slice(1, -1).every((l) => l.type === 'status' && l.taskId === taskId)).toBe(true);
    expect(lines.at(-2)).toMatchObject({ type: 'status', phase: 'succeeded' });
    expect(lines.at(-1)).toMatchObject({ type: 'result', kind: 'upscale', taskId, status: 'COMPLETED', urls: [expect.stringContaining(taskId)], files: [join(out, `${taskId}.png`)] });
    expect(readdirSync(out)).toEqual([`${taskId}.png`]);
  });

  it('without --wait, prints the task and how to wait for it; task wait picks it up', async () => {
    const first = await run(['task', 'skin-enhancer-creative', '--param', `image=@${image}`, '--param', 'sharpen=20', '--human']);
    expect(first.code).toBe(0);
    const taskId = /Submitted skin-enhancer-creative task (\S+)/.exec(first.stdout)![1]!;
    expect(first.stdout).toContain(`Wait for it: graphcloud task wait skin-enhancer-creative ${taskId}`);
    const waited = await run(['task', 'wait', 'skin-enhancer-creative', taskId]);
    expect(waited.code).toBe(0);
    expect(waited.lines.at(-1)).toMatchObject({ type: 'result', kind: 'skinEnhancerCreative', taskId });
  });

  it('checks the documented limits before sending, with the SDK messages (exit 2)', async () => {
    target.sim.state.clearRequests();
    const { code, lines } = await run(['task', 'upscale', '--param', `image=@${image}`, '--param', 'scale_factor=3x', '--param', 'creativity=11']);
    expect(code).toBe(2);
    const message = lines.at(-1)!.message as string;
    expect(message).toMatch(/^proxy\.image\.upscale\(\): 2 invalid arguments; nothing was sent/);
    expect(message).toMatch(/scale_factor: expected one of: 2x, 4x, 8x, 16x, received "3x"/);
    expect(message).toMatch(/creativity: expected an integer from -10 to 10, received 11/);
    expect(target.sim.state.requests).toEqual([]);
  });

  it('a video task takes lists and objects from dotted params', async () => {
    const { code, lines } = await run([
      'task', 'multiframe',
      '--param', 'model=videoq2-turbo',
      '--param', `start_image=@${image}`,
      '--param', `image_settings.0.key_image=@${image}`, '--param', 'image_settings.0.duration=2',
      '--param', `image_settings.1.key_image=@${image}`, '--param', 'image_settings.1.duration=3',
      '--wait',
    ]);
    expect(code).toBe(0);
    expect(lines.at(-1)).toMatchObject({ type: 'result', kind: 'multiframe', status: 'success', creations: [expect.objectContaining({ url: expect.any(String) })] });
  });

  it('a failed task exits 1', async () => {
    const { code, lines } = await run(['task', 'relight', '--param', `image=@${image}`, '--param', 'prompt=please fail', '--wait']);
    expect(code).toBe(1);
    expect(lines.at(-1)).toMatchObject({ type: 'error', exitCode: 1, message: expect.stringMatching(/^The relight task \S+ failed/) });
  });

  it('without any proxy key, exits 3 naming the variables', async () => {
    const { code, lines } = await run(['task', 'upscale', '--param', `image=@${image}`], { ...target.env, GRAPHCLOUD_PROXY_TOKEN: undefined, GRAPHCLOUD_API_KEY: undefined });
    expect(code).toBe(3);
    expect(lines.at(-1)).toMatchObject({ message: 'The media proxy needs a key, and none is set.', fix: 'Set GRAPHCLOUD_PROXY_TOKEN.' });
  });

  it('an unknown kind for task wait lists the kinds', async () => {
    const { code, lines } = await run(['task', 'wait', 'upscaler', 'abc']);
    expect(code).toBe(2);
    expect(lines[0]!.message).toMatch(/^Unknown task kind "upscaler"; the kinds are: relight, upscale, style-transfer/);
  });
});

describe('buildParams()', () => {
  const help = 'graphcloud task --help';
  it('types numbers and booleans, keeps other text, reads @path as a file and := as JSON', () => {
    expect(buildParams(['image=@./a.png', 'scale_factor=4x', 'creativity=-2', 'hdr=0.5', 'is_portrait=true', 'prompt=a=b', 'meta:={"a":[1]}', 'seed:="42"'], help)).toEqual({
      image: { path: './a.png' },
      scale_factor: '4x',
      creativity: -2,
      hdr: 0.5,
      is_portrait: true,
      prompt: 'a=b',
      meta: { a: [1] },
      seed: '42',
    });
  });

  it('builds objects and lists from dotted keys', () => {
    expect(buildParams(['advanced_settings.whites=10', 'images.0=@b.png', 'image_settings.1.duration=3', 'image_settings.0.duration=2'], help)).toEqual({
      advanced_settings: { whites: 10 },
      images: [{ path: 'b.png' }],
      image_settings: [{ duration: 2 }, { duration: 3 }],
    });
  });

  it('refuses a flag without "=", prototype keys, and a value then a field under it', () => {
    expect(() => buildParams(['scale_factor'], help)).toThrow('--param takes key=value, received "scale_factor".');
    expect(() => buildParams(['__proto__.polluted=1'], help)).toThrow('--param __proto__.polluted: not a field name.');
    expect(() => buildParams(['a=1', 'a.b=2'], help)).toThrow('--param a.b: a is already set to a value.');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
