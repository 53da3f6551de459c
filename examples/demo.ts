/**
 * The SDK end to end in one run: upload a picture, run a workflow on it with a live progress bar
 * (scale it to twice its width, invert its colours), save the output, upscale the picture through
 * the media proxy, list node versions from the registry.
 *
 *   npm run demo [-- image.png]   # starts the simulator in-process (graphcloud/testing); nothing leaves 127.0.0.1
 *   npx tsx examples/demo.ts [image.png]
 *
 * Without an image it uploads examples/assets/photo.png; the simulator's nodes really compute the
 * pixels, so demo-output/ holds that picture, twice as large, in negative.
 *
 * Against a real deployment, set (the registry and proxy steps are skipped when their URL is unset):
 *   GRAPHCLOUD_CLOUD_URL, GRAPHCLOUD_API_KEY            cloud execution API and its platform key
 *   GRAPHCLOUD_REGISTRY_URL, GRAPHCLOUD_REGISTRY_TOKEN  node registry (token optional for reads)
 *   GRAPHCLOUD_PROXY_URL, GRAPHCLOUD_PROXY_TOKEN        media proxy (Bearer token)
 *   GRAPHCLOUD_DEMO_OUTPUT                              where files are saved (default ./demo-output)
 *
 * When stdout is not a terminal (CI, a pipe), the progress bar becomes plain lines. Colours are
 * used on a terminal only, and never with NO_COLOR or FORCE_COLOR=0.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CloudClient, GraphcloudError, ProxyClient, RegistryClient, type WatchEvent, type Workflow } from 'graphcloud';

interface Target {
  label: string;
  cloud: { baseUrl: string; apiKey: string };
  registry?: { baseUrl: string; token?: string | undefined };
  proxy?: { baseUrl: string; token: string };
  /** Faster polling for the simulator, whose tasks take a second or two. */
  fastPolling: boolean;
  close(): Promise<void>;
}

async function target(): Promise<Target> {
  const env = process.env;
  if (env.GRAPHCLOUD_CLOUD_URL) {
    if (!env.GRAPHCLOUD_API_KEY) throw new Error('GRAPHCLOUD_CLOUD_URL is set but GRAPHCLOUD_API_KEY is not');
    if (env.GRAPHCLOUD_PROXY_URL && !env.GRAPHCLOUD_PROXY_TOKEN) throw new Error('GRAPHCLOUD_PROXY_URL is set but GRAPHCLOUD_PROXY_TOKEN is not');
    return {
      label: `deployment at ${new URL(env.GRAPHCLOUD_CLOUD_URL).host}`,
      cloud: { baseUrl: env.GRAPHCLOUD_CLOUD_URL, apiKey: env.GRAPHCLOUD_API_KEY },
      registry: env.GRAPHCLOUD_REGISTRY_URL ? { baseUrl: env.GRAPHCLOUD_REGISTRY_URL, token: env.GRAPHCLOUD_REGISTRY_TOKEN || undefined } : undefined,
      proxy: env.GRAPHCLOUD_PROXY_URL && env.GRAPHCLOUD_PROXY_TOKEN ? { baseUrl: env.GRAPHCLOUD_PROXY_URL, token: env.GRAPHCLOUD_PROXY_TOKEN } : undefined,
      fastPolling: false,
      close: async () => undefined,
    };
  }
  // Imported only here: a run against a deployment never loads the simulator.
  const { startSimulator } = await import('graphcloud/testing');
  const sim = await startSimulator({ stepDelayMs: 60, progressSteps: 8, taskDurationMs: 1_500 });
  return {
    label: `the local simulator (${sim.cloudUrl})`,
    cloud: { baseUrl: sim.cloudUrl, apiKey: sim.apiKey },
    registry: { baseUrl: sim.registryUrl, token: sim.token },
    proxy: { baseUrl: sim.proxyUrl, token: sim.token },
    fastPolling: true,
    close: () => sim.close(),
  };
}


/** Colours on a terminal that allows them (`hasColors()` honours NO_COLOR and FORCE_COLOR=0). */
const COLOURS = process.stdout.isTTY === true && process.stdout.hasColors();
const paint = (code: number, text: string): string => (COLOURS ? `\x1b[${code}m${text}\x1b[0m` : text);
const bold = (text: string): string => paint(1, text);
const green = (text: string): string => paint(32, text);

/** Words for a proxy task's phase, as a sentence says them. */
const PHASE_WORDS: Record<ProxyClient.TaskStatus['phase'], string> = { queued: 'is queued', running: 'is running', succeeded: 'succeeded', failed: 'failed' };

/** Cuts `text` to `room` characters, marking the cut. */
function fit(text: string, room: number): string {
  const chars = [...text];
  return chars.length <= room ? text : `${chars.slice(0, Math.max(0, room - 1)).join('')}…`;
}

/**
 * One frame of the progress bar for a terminal `columns` wide, never longer than `columns - 1`
 * (writing the last column wraps on many terminals, and a wrapped line cannot be redrawn with
 * `\r`): the bar shrinks first, then the text is cut, then the bar goes.
 */
function progressLine(fraction: number, what: string, columns: number): string {
  const room = Math.max(1, columns - 1);
  const percent = `${String(Math.round(fraction * 100)).padStart(3)}%`;
  const fixed = 2 + 2 + 1 + percent.length + 2; // indent, brackets, space, percent, gap
  const width = Math.min(40, Math.max(6, room - fixed - [...what].length));
  if (fixed + width + 4 > room) return fit(`  ${percent}  ${what}`, room);
  const filled = Math.round(fraction * width);
  return `  [${'█'.repeat(filled)}${'░'.repeat(width - filled)}] ${percent}  ${fit(what, room - fixed - width)}`;
}

/**
 * Progress of a run: a bar redrawn in place on a terminal, plain lines otherwise (one per node,
 * and one per quarter of the run).
 */
class ProgressView {
  readonly #tty = process.stdout.isTTY === true;
  readonly #nodes: Workflow;
  /** The SDK's overall progress of the job (`job_progress`): nodes done, cached ones too, and the running node's share. */
  #fraction = 0;
  #node: string | undefined;
  #step = 0;
  #max = 1;
  #lastQuarter = -1;
  #drawn = 0;

  constructor(workflow: Workflow) {
    this.#nodes = workflow;
  }

  onEvent(event: WatchEvent): void {
    if (event.type === 'job_progress') {
      this.#fraction = event.data.fraction ?? 0;
      if (event.data.node !== this.#node) {
        this.#node = event.data.node;
        this.#step = 0;
        this.#max = 1;
        if (this.#node && !this.#tty) this.#line(`running node ${this.#node} (${this.#nodes[this.#node]?.class_type ?? '?'})`);
      }
    } else if (event.type === 'progress') {
      this.#step = event.data.value;
      this.#max = Math.max(1, event.data.max);
      return;
    } else return;
    this.#draw();
  }

  finish(): void {
    if (this.#tty && this.#drawn > 0) process.stdout.write('\n');
  }

  #draw(): void {
    const fraction = this.#fraction;
    const step = this.#step > 0 ? ` ${this.#step}/${this.#max}` : '';
    const what = this.#node ? `node ${this.#node} ${this.#nodes[this.#node]?.class_type ?? ''}${step}` : 'done';
    if (this.#tty) {
      // Redrawn with a carriage return and spaces over the previous frame: no escape codes.
      const line = progressLine(fraction, what, process.stdout.columns || 80);
      const length = [...line].length;
      process.stdout.write(`\r${line}${' '.repeat(Math.max(0, this.#drawn - length))}`);
      this.#drawn = length;
      return;
    }
    const percent = Math.round(fraction * 100);
    const quarter = Math.floor(percent / 25);
    if (quarter > this.#lastQuarter) {
      this.#lastQuarter = quarter;
      this.#line(`${percent}% (${what})`);
    }
  }

  #line(text: string): void {
    console.log(`  ${text}`);
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  const where = await target();
  const outputDir = resolve(process.env.GRAPHCLOUD_DEMO_OUTPUT || 'demo-output');
  const picture = process.argv[2] ?? fileURLToPath(new URL('./assets/photo.png', import.meta.url));
  const cloud = new CloudClient(where.cloud);
  const summary: string[] = [];
  try {
    console.log(`${bold('graphcloud demo')} against ${where.label}\n`);
    await mkdir(outputDir, { recursive: true });

    console.log(bold('1. Upload an image'));
    const input = new Uint8Array(await readFile(picture));
    const width = pngWidth(input);
    const uploaded = await cloud.files.upload(input, { filename: basename(picture) });
    console.log(`  uploaded ${picture} as "${uploaded.name}" (${input.byteLength} bytes${width ? `, ${width} px wide` : ''})\n`);

    console.log(bold('2. Run a workflow (LoadImage -> ImageScale -> ImageInvert -> SaveImage)'));
    const workflow: Workflow = {
      '1': { class_type: 'LoadImage', inputs: { image: uploaded.name } },
      // Twice as wide (the height follows), each pixel repeated: the saved file is easy to check.
      '2': { class_type: 'ImageScale', inputs: { image: ['1', 0], upscale_method: 'nearest-exact', width: Math.min(16384, (width ?? 256) * 2), height: 0, crop: 'disabled' } },
      '3': { class_type: 'ImageInvert', inputs: { image: ['2', 0] } },
      '4': { class_type: 'SaveImage', inputs: { images: ['3', 0], filename_prefix: 'graphcloud-demo' } },
    };
    const view = new ProgressView(workflow);
    const runStarted = Date.now();
    const result = await cloud.runWorkflow(workflow, { onEvent: (event) => view.onEvent(event), download: true, waitTimeout: 10 * 60_000 });
    view.finish();
    const saved: string[] = [];
    for (const file of result.files ?? []) {
      const path = join(outputDir, file.ref.filename.replaceAll('/', '_'));
      await writeFile(path, file.data);
      saved.push(path);
    }
    console.log(`  job ${result.promptId} ${green(result.status)} in ${Date.now() - runStarted} ms (learned via ${result.via})`);
    for (const path of saved) console.log(`  saved ${path} (the picture scaled and inverted)`);
    console.log();
    summary.push(`workflow   ${result.status}, ${saved.length} file(s) saved to ${outputDir}`);

    if (where.proxy) {
      console.log(bold('3. Upscale the picture through the media proxy, waiting for the task'));
      // The simulator's task runs 1.5 s and is IN_PROGRESS for its last second; reads at most
      // 500 ms apart always see that phase (1,000 ms apart could step over it).
      await using proxy = new ProxyClient({ ...where.proxy, wait: where.fastPolling ? { poll: { minDelayMs: 250, maxDelayMs: 500 } } : undefined });
      const task = await proxy.image.upscale({ image: input, scale_factor: '2x', prompt: 'a mountain lake at noon' });
      console.log(`  task ${task.taskId} submitted (${task.status})`);
      const done = await proxy.waitForTask(task, { onUpdate: (status: ProxyClient.TaskStatus) => console.log(`  task ${PHASE_WORDS[status.phase]} (${status.status})`) });
      // Result URLs are signed and fetched without credentials.
      const response = await fetch(done.urls[0]!);
      const path = join(outputDir, `upscaled-${done.taskId}.png`);
      if (response.ok) {
        await writeFile(path, new Uint8Array(await response.arrayBuffer()));
        console.log(`  saved ${path}\n`);
      } else console.log(`  result at ${done.urls[0]} (download answered ${response.status})\n`);
      summary.push(`upscale    ${done.status}, ${done.urls.length} result URL(s)`);
    } else summary.push('upscale    skipped (GRAPHCLOUD_PROXY_URL is not set)');

    if (where.registry) {
      console.log(bold('4. List node versions from the registry'));
      await using registry = new RegistryClient(where.registry);
      const page = await registry.versions.list({ pageSize: 5 });
      for (const version of page.versions) console.log(`  ${version.node_id ?? '?'}@${version.version ?? '?'}  ${version.status ?? ''}`);
      console.log(`  ... ${page.total} versions in ${page.totalPages} pages\n`);
      summary.push(`registry   ${page.total} versions listed`);
    } else summary.push('registry   skipped (GRAPHCLOUD_REGISTRY_URL is not set)');

    console.log(bold(`Summary (${((Date.now() - started) / 1000).toFixed(1)} s)`));
    for (const line of summary) console.log(`  ${line}`);
  } finally {
    await cloud.close();
    await where.close();
  }
}

/** The width a PNG's header gives, or `undefined` for other bytes. */
function pngWidth(bytes: Uint8Array): number | undefined {
  const png = bytes.byteLength >= 24 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47;
  return png ? new DataView(bytes.buffer, bytes.byteOffset).getUint32(16) : undefined;
}

main().catch((error: unknown) => {
  // SDK errors carry no credential; print them as they are.
  console.error(`\ndemo failed: ${error instanceof GraphcloudError ? `${error.name}: ${error.message}` : error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
