// Every example of the command line: the `Examples` of each command's help, and each command of
// docs/cli.md and docs/simulator.md (the lines of their ```sh blocks, the `$ ` lines of their
// ```console blocks), run as written by bash, with `graphcloud` on PATH, against the simulator on
// 127.0.0.1 and a real redis-server, in a folder holding the files they name. Each one has a plan
// below: what it documents (its exit code, a line of its output), how a long-running one is
// stopped (Ctrl-C once it is ready), or why it cannot run here. A new or changed example without a
// plan fails the first test, so none can rot unseen.
//
// Three kinds of text are replaced before running, and only these: ids of the reader's own things
// (a job, a media task, a batch, a node and its publisher) by those of things made here; the hosts
// of the reader's Redis and runtimes by the test's; fixed ports by free ones.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandSpec } from '../../src/cli/base/command.js';
import { ROOT } from '../../src/cli/commands/index.js';
import { CloudClient, RegistryClient, type Workflow } from '../../src/index.js';
import { encodePng } from '../../src/testing/index.js';
import { nodeDefinitions } from '../../src/testing/cloud/nodes.js';
import { startRedis, type TestRedis } from '../queue/redis-server.js';
import { cliEntries, NODE, REPO, runPiped, startTarget, type SimTarget } from './helpers.js';

/** How one example is run. */
interface Plan {
  /** Why it is not run here, and what it needs. */
  skip?: string;
  /** The exit code it documents (default 0). */
  code?: number;
  /** Text its output (stdout and stderr) holds. */
  output?: string | RegExp;
  /** It runs until Ctrl-C: pressed once its output holds this text. */
  until?: string;
  /** GRAPHCLOUD_REDIS_URL is set (a run queue). */
  redis?: boolean;
  /** Against the slow simulator (a job lasts seconds): a Ctrl-C lands while it runs. */
  slow?: boolean;
  /** Replacements made just before it runs (see the header). */
  replace?: () => Promise<Record<string, string>> | Record<string, string>;
  /** A credential of the reader's it needs, made here. */
  env?: () => Promise<Record<string, string>>;
}

let target: SimTarget;
let slow: SimTarget;
let local: SimTarget;
let redis: TestRedis;
let template: string;
let bin: string;
const scratch: string[] = [];

/** A job that completed, made once. */
let jobId: Promise<string> | undefined;
/** Examples run so far: each gets a portrait.json of its own. */
let runs = 0;
/** A batch added to the queue (`--detach`), made once. */
let batchId: Promise<string> | undefined;

const JOB = '5d1e2c3a-8c4e-4f0e-9a51-0b6f1c2d3e4f';
const BATCH = 'sweep-7f3a9c21';
const ourNode = { 'acme-upscale': 'demo-node', '--publisher acme': '--publisher demo-publisher' };

const PLANS: Record<string, Plan> = {
  // The root's help
  'graphcloud sim                                   # a local simulator to try everything on': { until: '"type":"ready"' },
  "graphcloud run portrait.json --set 'KSampler.seed=42' --out ./out": { output: '"status":"completed"' },
  'graphcloud batch portrait.json --inputs sweep.csv --out ./out': { output: '"done":2' },
  'graphcloud task upscale --param image=@./small.png --param scale_factor=4x --wait --out ./out': { output: /"files":\["[^"]+/ },
  'graphcloud registry nodes search upscale': {},
  // run
  "graphcloud run portrait.json --set 'KSampler.seed=42' --upload 'Load Image.image=./me.png' --out ./out": { output: '"status":"completed"' },
  'graphcloud run portrait.json --json | jq -c \'select(.type == "progress") | .data\'': { output: '"max":' },
  'graphcloud run portrait.json --validate': {},
  // batch
  'graphcloud batch portrait.json --inputs sweep.jsonl --out ./out': { output: '"done":2' },
  "printf 'KSampler.seed,Positive.text\\n1,a fox\\n2,a cat\\n' > sweep.csv && graphcloud batch portrait.json --inputs sweep.csv --concurrency 2": { output: '"done":2' },
  'graphcloud batch portrait.json --inputs sweep.csv --json | jq -c \'select(.type == "result") | [.set, .status]\'': { output: '[1,"done"]' },
  'GRAPHCLOUD_REDIS_URL=redis://127.0.0.1:6379 graphcloud batch portrait.json --inputs sweep.jsonl --detach': { replace: () => ({ 'redis://127.0.0.1:6379': redis.url }), output: '"type":"added"' },
  'graphcloud batch status sweep-7f3a9c21': { redis: true, replace: async () => ({ [BATCH]: await ourBatch() }) },
  'graphcloud batch status sweep-7f3a9c21 --json | jq -r \'select(.state == "failed") | .id\'': { redis: true, replace: async () => ({ [BATCH]: await ourBatch() }) },
  'graphcloud batch cancel sweep-7f3a9c21': { redis: true, replace: async () => ({ [BATCH]: await ourBatch() }), output: '"type":"summary"' },
  'graphcloud batch results sweep-7f3a9c21 --out ./out': { redis: true, replace: async () => ({ [BATCH]: await ourBatch() }), output: '"type":"result"' },
  // jobs
  'graphcloud jobs list --status in_progress': {},
  'graphcloud jobs watch <promptId>': { replace: async () => ({ '<promptId>': await ourJob() }), output: '"status":"completed"' },
  'graphcloud jobs cancel <promptId>': { slow: true, replace: async () => ({ '<promptId>': await runningJob() }), output: '"cancelled":true' },
  'graphcloud jobs list': {},
  "graphcloud jobs list --status failed --limit 100 --json | jq -r '.promptId'": {},
  'graphcloud jobs get 5d1e2c3a-8c4e-4f0e-9a51-0b6f1c2d3e4f --out ./out': { replace: async () => ({ [JOB]: await ourJob() }), output: '"saved"' },
  'graphcloud jobs watch 5d1e2c3a-8c4e-4f0e-9a51-0b6f1c2d3e4f': { replace: async () => ({ [JOB]: await ourJob() }), output: '"status":"completed"' },
  'graphcloud jobs cancel 5d1e2c3a-8c4e-4f0e-9a51-0b6f1c2d3e4f': { slow: true, replace: async () => ({ [JOB]: await runningJob() }), output: '"cancelled":true' },
  // upload
  'graphcloud upload ./photo.png': { output: '"name"' },
  "graphcloud upload ./a.png ./b.png --json | jq -r '.name'": { output: /\.png\n.*\.png/ },
  // task
  'graphcloud task wait upscale 7f9c2d1e': { replace: async () => ({ '7f9c2d1e': await ourTask() }), output: '"succeeded"' },
  "graphcloud task relight --param image=@./portrait.jpg --param 'prompt=sunset (warm rim light:1.3)' --param style=clean --wait": { output: '"succeeded"' },
  'graphcloud task style-transfer --param image=@./photo.jpg --param reference_image=@./painting.jpg --param style_strength=70 --wait': { output: '"succeeded"' },
  'graphcloud task skin-enhancer-creative --param image=@./face.jpg --param sharpen=20 --wait': { output: '"succeeded"' },
  'graphcloud task skin-enhancer-faithful --param image=@./face.jpg --param skin_detail=90 --wait': { output: '"succeeded"' },
  "graphcloud task reference-to-video --param model=videoq2-pro --param 'prompt=a paper boat at dawn' --param images.0=@./boat.png --param duration=8 --wait --out ./out": { output: /"files":\["[^"]+/ },
  'graphcloud task extend --param model=videoq2-pro --param video_creation_id=<id> --param video_url=<url> --param duration=5 --wait': {
    skip: 'extends a video of the reader\'s: <id> and <url> come from a finished video task of theirs (`task reference-to-video`, run above, makes one)',
  },
  "graphcloud task multiframe --param model=videoq2-turbo --param start_image=@./a.png --param 'image_settings.0.key_image=@./b.png' --param image_settings.0.duration=3 --param 'image_settings.1.key_image=@./c.png' --param image_settings.1.duration=3 --wait": { output: '"succeeded"' },
  'graphcloud task wait upscale 7f9c2d1e --out ./out': { replace: async () => ({ '7f9c2d1e': await ourTask() }), output: /"files":\["[^"]+/ },
  // registry
  'graphcloud registry nodes versions acme-upscale': { replace: () => ourNode },
  "graphcloud registry nodes search video --limit 100 --json | jq -r '.id'": {},
  'graphcloud registry nodes get acme-upscale': { replace: () => ourNode, output: '"id":"demo-node"' },
  "graphcloud registry nodes versions acme-upscale --json | jq -r '.version'": { replace: () => ourNode, output: /\d+\.\d+\.\d+/ },
  'git archive --format=zip -o acme-upscale.zip HEAD': { replace: () => ourNode },
  "graphcloud registry nodes publish acme-upscale 1.3.0 --publisher acme --package ./acme-upscale.zip --changelog 'Faster'": {
    replace: () => ({ ...ourNode, '1.3.0': `1.3.${Date.now() % 100_000}` }),
    env: async () => ({ GRAPHCLOUD_REGISTRY_PAT: await ourPat() }),
    output: '"version"',
  },
  // types
  'graphcloud types --url http://127.0.0.1:8188 --out src/nodes.ts': { replace: () => ({ 'http://127.0.0.1:8188': local.sim.cloudUrl }), output: '"type":"types"' },
  'graphcloud types --out src/nodes.ts                 # the cloud of GRAPHCLOUD_CLOUD_URL, with GRAPHCLOUD_API_KEY': { output: '"type":"types"' },
  'graphcloud types --object-info catalog.json --max-combo 500 > src/nodes.ts': {},
  'graphcloud types --eject portrait.json --object-info catalog.json --types ./nodes.js --out src/portrait.ts': { output: '"type":"eject"' },
  // sim
  'graphcloud sim': { until: '"type":"ready"' },
  'graphcloud sim --port 8188 --cors': { replace: async () => ({ 8188: String(await freePorts()) }), until: '"type":"ready"' },
  'eval "$(graphcloud sim --background)" && graphcloud jobs list && kill $GRAPHCLOUD_SIM_PID': { output: 'runs in the background' },
  // worker
  'GRAPHCLOUD_REDIS_URL=redis://127.0.0.1:6379 graphcloud worker': { replace: () => ({ 'redis://127.0.0.1:6379': redis.url }), until: '"type":"ready"' },
  'graphcloud worker --redis redis://redis.internal:6379 --runtime http://gpu-1:8188 --runtime http://gpu-2:8188': {
    replace: () => ({ 'redis://redis.internal:6379': redis.url, 'http://gpu-1:8188': local.sim.cloudUrl, 'http://gpu-2:8188': `${local.sim.cloudUrl}/` }),
    until: '"type":"ready"',
  },
  // docs/cli.md
  'graphcloud sim --quiet': { until: '"type":"ready"' },
  'graphcloud types --url http://127.0.0.1:8188 --out src/nodes.ts   # a local runtime': { replace: () => ({ 'http://127.0.0.1:8188': local.sim.cloudUrl }), output: '"type":"types"' },
  'graphcloud types --out src/nodes.ts                                 # the cloud: GRAPHCLOUD_CLOUD_URL, GRAPHCLOUD_API_KEY': { output: '"type":"types"' },
  'graphcloud types --object-info catalog.json > src/nodes.ts          # a saved catalog': {},
  'graphcloud types --eject portrait.json --url http://127.0.0.1:8188 --types ./nodes.js > src/portrait.ts': { replace: () => ({ 'http://127.0.0.1:8188': local.sim.cloudUrl }) },
  "graphcloud run resize.json --upload 'Photo.image=photo.png' --set 'Resize.width=512' --out out": { output: '"status":"completed"' },
  'graphcloud run resize.json --upload \'Photo.image=photo.png\' --set \'Resize.width=300\' | jq -r \'select(.type == "executing" or .type == "result") | "\\(.type) \\(.data.node // .status)"\'': {
    output: 'executing 11\nexecuting 12\nresult completed',
  },
  'graphcloud jobs list --limit 3': {},
  "graphcloud run resize.json --upload 'Photo.image=photo.png' --set 'Resize.width=1000'": { slow: true, until: '"type":"submitted"', code: 5 },
  'echo "exit code $?"': { skip: 'prints the exit code of the command before it in the same session (each of those is checked with its own plan)' },
  "graphcloud run resize.json --upload 'Photo.image=photo.png' --set 'Resize.widht=512'": {
    code: 2,
    output: 'input address \\"Resize.widht\\": node 11 (ImageScale) has no input \\"widht\\". Use one of its inputs; candidates: image, upscale_method, width, height, crop; nothing was sent',
  },
  "graphcloud run portrait.json --set 'KSampler.seed=42' --set 'Positive.text=a red fox' --upload 'Load Image.image=./me.png' --out ./out --timeout 20m": { output: '"status":"completed"' },
  'graphcloud batch portrait.json --inputs sweep.csv --out ./out --concurrency 4': { output: '"done":2' },
  'export GRAPHCLOUD_REDIS_URL=redis://redis.internal:6379': {},
  'graphcloud worker                                   # on each machine that runs jobs (or --runtime URL ...)': { redis: true, until: '"type":"ready"' },
  'graphcloud run portrait.json | jq -c \'select(.type == "progress") | .data | [.node, .value, .max]\'': { output: /\["\d+",\d+,\d+\]/ },
  'graphcloud jobs list --status failed | jq -r .promptId': {},
  // estimate (help and docs/cli.md); sweep.csv's sets name other nodes: the batch form gets its own sets
  'graphcloud estimate video.json': { output: '"usd":{"min":0.5,"max":0.5}' },
  "graphcloud estimate video.json --set 'Video.duration=10'": { output: '"usd":{"min":1,"max":1}' },
  "graphcloud estimate video.json --inputs sweep.csv --json | jq .usd": { replace: () => ({ 'sweep.csv': 'durations.csv' }), output: '"max": 1.5' },
  'graphcloud estimate video.json --inputs sweep.csv': { replace: () => ({ 'sweep.csv': 'durations.csv' }), output: '"type":"total"' },
};

/** Every command path's examples. */
function helpExamples(command: CommandSpec = ROOT): string[] {
  return [...(command.examples ?? []), ...(command.subcommands ?? []).flatMap((sub) => helpExamples(sub))];
}

/** The commands of a Markdown file: each command of a ```sh block (`\` continuations joined), each `$ ` line of a ```console block. */
function docExamples(file: string): string[] {
  const found: string[] = [];
  let block: string | undefined;
  let pending = '';
  for (const line of readFileSync(join(REPO, file), 'utf8').split('\n')) {
    const fence = /^```(\w*)/.exec(line);
    if (fence) {
      block = block === undefined ? fence[1] : undefined;
      continue;
    }
    if (block === 'console' && line.startsWith('$ ')) found.push(line.slice(2));
    if (block !== 'sh' && block !== 'shell' && block !== 'bash') continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1).trim()} `;
      continue;
    }
    const command = pending + line.trim();
    pending = '';
    if (command !== '' && !command.startsWith('#')) found.push(command);
  }
  return found;
}

const EXAMPLES = [...new Set([...helpExamples(), ...docExamples('docs/cli.md'), ...docExamples('docs/simulator.md')])];

beforeAll(async () => {
  [target, slow, local, redis] = await Promise.all([startTarget(), startTarget({ stepDelayMs: 2_000 }), startTarget({ runtime: 'local' }), startRedis()]);
  const { cli } = await cliEntries();
  bin = mkdtempSync(join(tmpdir(), 'graphcloud-examples-bin-'));
  writeFileSync(join(bin, 'graphcloud'), `#!/bin/sh\nexec "${NODE}" "${cli}" "$@"\n`, { mode: 0o755 });
  template = mkdtempSync(join(tmpdir(), 'graphcloud-examples-'));
  scratch.push(bin, template);
  writeFixtures(template);
  // portrait.json loads an image the simulator already has.
  await runPiped(['upload', join(template, 'portrait.png')], { env: target.env });
}, 60_000);
afterAll(async () => {
  await Promise.all([target?.sim.close(), slow?.sim.close(), local?.sim.close(), redis?.stop()]);
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/** The files the examples name, as a reader would have them (images, workflows, sets, a git repository). */
function writeFixtures(dir: string): void {
  const png = (name: string, rgb: [number, number, number]) => writeFileSync(join(dir, name), encodePng(24, 16, rgb));
  for (const [i, name] of ['me.png', 'small.png', 'a.png', 'b.png', 'c.png', 'boat.png', 'portrait.png', 'portrait.jpg', 'photo.jpg', 'painting.jpg', 'face.jpg'].entries()) png(name, [20 * i, 100, 200 - 10 * i]);
  // The portrait workflow of the examples, made of the simulator's nodes and titled as they name
  // them: KSampler (seed) and Positive (text) are its text nodes.
  const portrait = {
    '1': { class_type: 'LoadImage', inputs: { image: 'portrait.png' }, _meta: { title: 'Load Image' } },
    '2': { class_type: 'ImageScale', inputs: { image: ['1', 0], upscale_method: 'bilinear', width: 64, height: 0, crop: 'disabled' } },
    '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'portrait' } },
    '4': { class_type: 'TruncateText', inputs: { text: 'a portrait', max_length: 77, seed: 0 }, _meta: { title: 'KSampler' } },
    '5': { class_type: 'TruncateText', inputs: { text: 'a fox', max_length: 77 }, _meta: { title: 'Positive' } },
  };
  writeFileSync(join(dir, 'portrait.json'), JSON.stringify(portrait, null, 2));
  // The catalog `types --object-info` reads (the simulator's, as GET /api/object_info answers it), and
  // the src/ folder of the reader's project that `> src/nodes.ts` writes into.
  writeFileSync(join(dir, 'catalog.json'), JSON.stringify(nodeDefinitions(['portrait.png'])));
  mkdirSync(join(dir, 'src'));
  // docs/cli.md's resize.json is this one (saved from the web UI), photo.png that of examples/assets.
  cpSync(join(REPO, 'examples/workflows/resize.json'), join(dir, 'resize.json'));
  cpSync(join(REPO, 'examples/assets/photo.png'), join(dir, 'photo.png'));
  // docs/cli.md's video.json: a priced partner node titled Video (the simulator's), saved as an image.
  const video = {
    '4': { class_type: 'SimPricedVideo', inputs: { duration: 5, resolution: '720p', generate_audio: false }, _meta: { title: 'Video' } },
    '5': { class_type: 'SaveImage', inputs: { images: ['4', 0], filename_prefix: 'video' } },
  };
  writeFileSync(join(dir, 'video.json'), JSON.stringify(video, null, 2));
  writeFileSync(join(dir, 'sweep.csv'), 'KSampler.seed,Positive.text\n1,a fox\n2,a cat\n');
  writeFileSync(join(dir, 'durations.csv'), 'Video.duration\n5\n10\n');
  writeFileSync(join(dir, 'sweep.jsonl'), '{"KSampler.seed": 1, "Positive.text": "a red fox"}\n{"KSampler.seed": 2, "Positive.text": "a fox, running"}\n');
  // A node's source, for `git archive` and `registry nodes publish`.
  writeFileSync(join(dir, 'pyproject.toml'), '[project]\nname = "demo-node"\nversion = "1.3.0"\n');
  const git = (...args: string[]) => runQuiet('git', args, dir);
  git('init', '-q');
  git('add', 'pyproject.toml');
  git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'node');
  // What the example before `registry nodes publish` makes (`git archive`), with the node's name of here.
  git('archive', '--format=zip', '-o', 'demo-node.zip', 'HEAD');
}

function runQuiet(command: string, args: string[], cwd: string): void {
  const result = spawnSync(command, args, { cwd, env: { PATH: process.env.PATH ?? '', HOME: tmpdir() } });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')}: ${result.stderr.toString()}`);
}

function ourJob(): Promise<string> {
  jobId ??= runPiped(['run', 'resize.json', '--upload', 'Photo.image=photo.png', '--set', 'Resize.width=100'], { env: target.env, cwd: template }).then((run) => {
    const result = run.lines.find((l) => l.type === 'result');
    if (result?.status !== 'completed') throw new Error(`no job for the examples: ${run.stdout}${run.stderr}`);
    return result.promptId as string;
  });
  return jobId;
}

/** A job still running on the slow simulator (each call a new one: a cancel ends it). */
async function runningJob(): Promise<string> {
  await using cloud = new CloudClient({ baseUrl: slow.sim.cloudUrl, apiKey: slow.sim.apiKey });
  const { name } = await cloud.files.upload(encodePng(8, 8, [1, 2, 3]), { filename: 'photo.png' });
  const workflow: Workflow = {
    '1': { class_type: 'LoadImage', inputs: { image: name } },
    '2': { class_type: 'ImageScale', inputs: { image: ['1', 0], upscale_method: 'bilinear', width: 100 + ++runs, height: 0, crop: 'disabled' } },
    '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'running' } },
  };
  return (await cloud.jobs.submit(workflow)).promptId;
}

async function ourTask(): Promise<string> {
  const run = await runPiped(['task', 'upscale', '--param', 'image=@./small.png', '--param', 'scale_factor=2x'], { env: target.env, cwd: template });
  const task = run.lines.find((l) => typeof l.taskId === 'string');
  if (!task) throw new Error(`no task for the examples: ${run.stdout}${run.stderr}`);
  return task.taskId as string;
}

function ourBatch(): Promise<string> {
  batchId ??= runPiped(['batch', 'portrait.json', '--inputs', 'sweep.jsonl', '--detach', '--queue', 'graphcloud'], { env: { ...target.env, GRAPHCLOUD_REDIS_URL: redis.url }, cwd: template }).then((run) => {
    const added = run.lines.find((l) => l.type === 'added');
    if (!added) throw new Error(`no batch for the examples: ${run.stdout}${run.stderr}`);
    return added.batchId as string;
  });
  return batchId;
}

/** A personal access token of the simulator's demo publisher (`registry.publishers.createToken()`). */
async function ourPat(): Promise<string> {
  await using registry = new RegistryClient({ baseUrl: target.sim.registryUrl, token: target.sim.token });
  return (await registry.publishers.createToken('demo-publisher', { name: `examples-${++runs}` })).token;
}

/** A port free now, with the next two (the simulator takes three in a row: cloud, registry, files). */
async function freePorts(): Promise<number> {
  const listen = (port: number) =>
    new Promise<number | undefined>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(undefined));
      server.listen(port, '127.0.0.1', () => {
        const { port: taken } = server.address() as { port: number };
        server.close(() => resolve(taken));
      });
    });
  for (;;) {
    const first = await listen(0);
    if (first === undefined || first > 65_000) continue;
    if ((await listen(first + 1)) !== undefined && (await listen(first + 2)) !== undefined) return first;
  }
}

/** Runs one example in bash (pipefail), in a fresh copy of the fixtures; presses Ctrl-C once `until` shows. */
async function runExample(text: string, plan: Plan): Promise<{ code: number | null; output: string }> {
  const cwd = mkdtempSync(join(tmpdir(), 'graphcloud-example-'));
  scratch.push(cwd);
  cpSync(template, cwd, { recursive: true });
  // A job of its own (the simulator serves a workflow it ran before from its cache, without progress).
  const portrait = JSON.parse(readFileSync(join(cwd, 'portrait.json'), 'utf8')) as Workflow;
  portrait['2']!.inputs.width = 32 + ++runs;
  writeFileSync(join(cwd, 'portrait.json'), JSON.stringify(portrait, null, 2));
  let command = text;
  for (const [from, to] of Object.entries((await plan.replace?.()) ?? {})) command = command.replaceAll(from, to);
  const world = plan.slow ? slow : target;
  const env = { PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: cwd, LANG: 'C.UTF-8', ...world.env, ...(plan.redis ? { GRAPHCLOUD_REDIS_URL: redis.url } : {}), ...(await plan.env?.()) };
  const child = spawn('bash', ['-o', 'pipefail', '-c', command], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let pressed = false;
  const read = (chunk: string): void => {
    output += chunk;
    if (plan.until && !pressed && output.includes(plan.until)) {
      pressed = true;
      process.kill(-child.pid!, 'SIGINT');
    }
  };
  child.stdout.setEncoding('utf8').on('data', read);
  child.stderr.setEncoding('utf8').on('data', read);
  const limit = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 45_000);
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  clearTimeout(limit);
  // A simulator it started in the background and did not stop (it failed midway) is stopped here.
  const background = /runs in the background, pid (\d+)/.exec(output);
  if (background && code !== 0) {
    try {
      process.kill(Number(background[1]), 'SIGTERM');
    } catch {
      // already gone
    }
  }
  return { code, output };
}

describe('the examples of the help texts and of docs/cli.md, docs/simulator.md', () => {
  it('each has a plan, and each plan an example', () => {
    expect(EXAMPLES.filter((text) => !(text in PLANS))).toEqual([]);
    expect(Object.keys(PLANS).filter((text) => !EXAMPLES.includes(text))).toEqual([]);
  });

  it.each(EXAMPLES.filter((text) => PLANS[text] && !PLANS[text].skip))('%s', { timeout: 60_000 }, async (text) => {
    const plan = PLANS[text]!;
    const { code, output } = await runExample(text, plan);
    expect(code, output).toBe(plan.code ?? 0);
    if (typeof plan.output === 'string') expect(output).toContain(plan.output);
    else if (plan.output) expect(output).toMatch(plan.output);
  });
});
