import { PROXY_ENUMS, type ProxyClient } from '../../index.js';
import { createProxy } from '../base/clients.js';
import type { CommandContext, CommandSpec, OptionSpec } from '../base/command.js';
import { usageError } from '../base/errors.js';
import { EXIT, type ExitCode } from '../base/exit-codes.js';
import { TaskReporter } from '../live/task-reporter.js';
import { downloadUrls } from '../base/outputs.js';
import { parseAssignment, parseDuration, typedValue } from '../base/values.js';

type Family = 'image' | 'video';
interface KindSpec {
  /** The SDK's kind: the method of `proxy.image` or `proxy.video`. */
  kind: ProxyClient.TaskKind;
  family: Family;
  summary: string;
  example: string;
}

// The SDK's eight kinds, spelled in kebab-case on the command line.
const KINDS: Readonly<Record<string, KindSpec>> = Object.freeze({
  relight: { kind: 'relight', family: 'image', summary: 'Relight an image from a prompt, a light map or a reference image', example: "--param image=@./portrait.jpg --param 'prompt=sunset (warm rim light:1.3)' --param style=clean --wait" },
  upscale: { kind: 'upscale', family: 'image', summary: 'Upscale an image (2x to 16x)', example: '--param image=@./small.png --param scale_factor=4x --wait --out ./out' },
  'style-transfer': { kind: 'styleTransfer', family: 'image', summary: "Transfer a reference image's style onto an image", example: '--param image=@./photo.jpg --param reference_image=@./painting.jpg --param style_strength=70 --wait' },
  'skin-enhancer-creative': { kind: 'skinEnhancerCreative', family: 'image', summary: 'Enhance skin with an artistic look', example: '--param image=@./face.jpg --param sharpen=20 --wait' },
  'skin-enhancer-faithful': { kind: 'skinEnhancerFaithful', family: 'image', summary: 'Enhance skin, faithful to the original', example: '--param image=@./face.jpg --param skin_detail=90 --wait' },
  'reference-to-video': { kind: 'referenceToVideo', family: 'video', summary: 'Generate a video from a prompt and a start image', example: "--param model=videoq2-pro --param 'prompt=a paper boat at dawn' --param images.0=@./boat.png --param duration=8 --wait --out ./out" },
  extend: { kind: 'extend', family: 'video', summary: 'Extend a video by 1 to 7 seconds', example: '--param model=videoq2-pro --param video_creation_id=<id> --param video_url=<url> --param duration=5 --wait' },
  multiframe: { kind: 'multiframe', family: 'video', summary: 'Generate a video through 2 to 9 key frames', example: "--param model=videoq2-turbo --param start_image=@./a.png --param 'image_settings.0.key_image=@./b.png' --param image_settings.0.duration=3 --param 'image_settings.1.key_image=@./c.png' --param image_settings.1.duration=3 --wait" },
});

const WAIT_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  out: { type: 'string', value: '<dir>', description: 'Download the results into <dir> (never over an existing file)' },
  timeout: { type: 'string', value: '<duration>', description: 'Stop waiting after this long: 90s, 10m, 1h (default 80m of non-queued time)' },
};

const PARAM_HELP =
  'Params use the vendor\'s field names. --param key=value sets one: numbers and true/false are typed,\n' +
  'key=@path sends a local file, key:=<json> sets JSON, a.b=… and list.0=… build objects and lists.\n' +
  'Every documented limit is checked before anything is sent.';

function kindCommand(name: string, spec: KindSpec): CommandSpec {
  const enums = (PROXY_ENUMS as Readonly<Record<string, Readonly<Record<string, unknown>>>>)[spec.kind];
  const values = enums ? Object.entries(enums).flatMap(([field, list]) => describeEnum(field, list)) : [];
  return {
    name,
    summary: spec.summary,
    description: `${spec.summary} (proxy.${spec.family}.${spec.kind}).\n\n${PARAM_HELP}${values.length ? `\n\nDocumented values:\n${values.map((v) => `  ${v}`).join('\n')}` : ''}`,
    positionals: [0, 0],
    service: 'proxy',
    options: {
      param: { type: 'string', multiple: true, value: '<key=value>', description: 'A parameter of the task (repeatable)' },
      wait: { type: 'boolean', description: 'Wait for the result (else print the task id and return)' },
      ...WAIT_OPTIONS,
    },
    examples: [`graphcloud task ${name} ${spec.example}`],
    run: (ctx) => runSubmit(ctx, spec),
  };
}

function describeEnum(field: string, list: unknown): string[] {
  if (Array.isArray(list)) return [`${field}: ${list.join(', ')}`];
  if (list && typeof list === 'object') return Object.entries(list).flatMap(([inner, values]) => describeEnum(`${field}.${inner}`, values));
  return [];
}

async function runSubmit(ctx: CommandContext, spec: KindSpec): Promise<ExitCode> {
  const { out, options, interrupts } = ctx;
  const help = `${ctx.path} --help`;
  const params = buildParams((options.param as string[] | undefined) ?? [], help);
  if ((options.out || options.timeout) && !options.wait) throw usageError('--out and --timeout apply to --wait.', help);
  const waitTimeout = typeof options.timeout === 'string' ? parseDuration(options.timeout, '--timeout', help) : undefined;
  await using proxy = createProxy(ctx);
  const family = proxy[spec.family] as unknown as Record<string, (params: unknown, options?: ProxyClient.SubmitTaskOptions) => Promise<ProxyClient.TaskRef>>;
  const task = await family[spec.kind]!(params, { signal: interrupts.signal });
  const cliKind = cliKindOf(spec.kind);
  out.json({ type: 'submitted', kind: spec.kind, taskId: task.taskId });
  out.human(`${out.style('green', '✔')} Submitted ${cliKind} task ${out.style('bold', task.taskId)}`);
  if (!options.wait) {
    out.human(out.style('dim', `  Wait for it: graphcloud task wait ${cliKind} ${task.taskId}`));
    return EXIT.ok;
  }
  return await waitAndReport(ctx, proxy, task, waitTimeout);
}

async function runWait(ctx: CommandContext): Promise<ExitCode> {
  const [kindName, taskId] = ctx.positionals as [string, string];
  const help = `${ctx.path} --help`;
  const spec = KINDS[kindName] ?? Object.values(KINDS).find((k) => k.kind === kindName);
  if (!spec) throw usageError(`Unknown task kind "${kindName}"; the kinds are: ${Object.keys(KINDS).join(', ')}.`, help);
  const waitTimeout = typeof ctx.options.timeout === 'string' ? parseDuration(ctx.options.timeout, '--timeout', help) : undefined;
  await using proxy = createProxy(ctx);
  return await waitAndReport(ctx, proxy, { kind: spec.kind, taskId }, waitTimeout);
}

async function waitAndReport(ctx: CommandContext, proxy: ProxyClient, task: ProxyClient.TaskRef, waitTimeout: number | false | undefined): Promise<ExitCode> {
  const { out, interrupts } = ctx;
  const cliKind = cliKindOf(task.kind);
  // Media tasks have no cancel route: Ctrl-C stops waiting, and the task goes on.
  interrupts.setLeaveNotice(() => ({ text: `Left without waiting: the ${cliKind} task ${task.taskId} goes on. Wait again: graphcloud task wait ${cliKind} ${task.taskId}`, json: { type: 'left', kind: task.kind, taskId: task.taskId } }));
  const reporter = new TaskReporter(ctx, cliKind, task.taskId);
  let result;
  try {
    result = await proxy.waitForTask(task, { signal: interrupts.signal, onUpdate: (status: ProxyClient.TaskStatus) => reporter.update(status), ...(waitTimeout === undefined ? {} : { waitTimeout }) });
  } catch (error) {
    reporter.stop();
    if (interrupts.signal.aborted) {
      out.json({ type: 'left', kind: task.kind, taskId: task.taskId, exitCode: EXIT.interrupted });
      out.notice(`Stopped waiting: the ${cliKind} task ${task.taskId} goes on (media tasks cannot be cancelled). Wait again: graphcloud task wait ${cliKind} ${task.taskId}`);
      return EXIT.interrupted;
    }
    throw error;
  }
  reporter.stop();
  const saved = typeof ctx.options.out === 'string' ? await downloadUrls(result.urls, ctx.options.out, task.taskId, interrupts.signal) : [];
  out.json({ type: 'result', kind: result.kind, taskId: result.taskId, status: result.status, urls: result.urls, ...('creations' in result ? { creations: result.creations, credits: result.credits } : {}), files: saved });
  out.human(`${out.style('green', '✔')} ${cliKind} task ${result.taskId} ${out.style('bold', 'completed')}`);
  if (saved.length > 0) for (const path of saved) out.human(`  saved ${path}`);
  else for (const url of result.urls) out.human(`  ${url}`);
  return EXIT.ok;
}

/**
 * The params of `--param` flags: typed values, `@path` files, dotted paths into objects and lists.
 *
 * @throws {CliError} a malformed flag.
 * @example
 * ```ts
 * buildParams(['image=@./a.png', 'scale_factor=4x', 'creativity=2'], help); // { image: { path: './a.png' }, scale_factor: '4x', creativity: 2 }
 * ```
 */
export function buildParams(flags: readonly string[], help: string): Record<string, unknown> {
  const root: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const flag of flags) {
    const assignment = parseAssignment(flag, '--param', help);
    const value = !assignment.json && assignment.value.startsWith('@') ? { path: assignment.value.slice(1) } : typedValue(assignment, undefined, '--param', help);
    const keys = assignment.key.split('.');
    if (keys.some((k) => k === '' || k === '__proto__' || k === 'constructor' || k === 'prototype')) throw usageError(`--param ${assignment.key}: not a field name.`, help);
    let target: Record<string, unknown> | unknown[] = root;
    keys.forEach((key, i) => {
      const last = i === keys.length - 1;
      const next = keys[i + 1];
      const slot = Array.isArray(target) ? Number(key) : key;
      if (Array.isArray(target) && !/^\d+$/.test(key)) throw usageError(`--param ${assignment.key}: "${key}" indexes a list (use a number).`, help);
      const container = target as Record<string | number, unknown>;
      if (last) {
        container[slot] = value;
        return;
      }
      const wantList = next !== undefined && /^\d+$/.test(next);
      if (container[slot] === undefined) container[slot] = wantList ? [] : (Object.create(null) as Record<string, unknown>);
      const child = container[slot];
      if (typeof child !== 'object' || child === null) throw usageError(`--param ${assignment.key}: ${keys.slice(0, i + 1).join('.')} is already set to a value.`, help);
      target = child as Record<string, unknown> | unknown[];
    });
  }
  return JSON.parse(JSON.stringify(root)) as Record<string, unknown>;
}

function cliKindOf(kind: string): string {
  return Object.entries(KINDS).find(([, spec]) => spec.kind === kind)?.[0] ?? kind;
}

/**
 * `graphcloud task`: the media proxy's eight tasks, and the wait for one.
 *
 * @example
 * ```ts
 * await runCli(root, ['task', 'upscale', '--param', 'image=@./in.png', '--wait'], io);
 * ```
 */
export const taskCommand: CommandSpec = {
  name: 'task',
  summary: 'Submit a media task (image or video) and wait for its result',
  description: `Submit one of the media proxy's eight tasks, or wait for one.\n\n${PARAM_HELP}`,
  subcommands: [
    ...Object.entries(KINDS).map(([name, spec]) => kindCommand(name, spec)),
    {
      name: 'wait',
      summary: 'Wait for a task submitted earlier',
      args: '<kind> <taskId>',
      positionals: [2, 2],
      service: 'proxy',
      options: WAIT_OPTIONS,
      examples: ['graphcloud task wait upscale 7f9c2d1e --out ./out'],
      run: runWait,
    },
  ],
  examples: ['graphcloud task upscale --param image=@./small.png --param scale_factor=4x --wait --out ./out', 'graphcloud task wait upscale 7f9c2d1e'],
};
