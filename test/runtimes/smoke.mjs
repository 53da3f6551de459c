// Runtime smoke of the BUILT package: one workflow run (upload, socket, outputs), one proxy wait,
// one registry call. Plain JavaScript so every runtime runs it as is: Node, Bun and Deno take the
// URLs and credentials from the environment; a browser takes them from the page's query string
// (the same names). Prints one JSON line: {"runtime", "ok", "ms", "steps" | "error"}.
// Run by scripts/e2e-runtimes.mjs against the simulator; `node test/runtimes/smoke.mjs` with the
// GRAPHCLOUD_* variables set runs it against any deployment with the simulator's node types.
import { CloudClient, ProxyClient, RegistryClient } from 'graphcloud';
import { smokePng, smokeWorkflow } from './smoke-workflow.mjs';

const STEP_TIMEOUT_MS = 20_000;

const isBrowser = typeof globalThis.document !== 'undefined';
const runtime = globalThis.Deno ? `deno ${globalThis.Deno.version.deno}` : globalThis.Bun ? `bun ${globalThis.Bun.version}` : isBrowser ? `browser ${globalThis.navigator.userAgent.match(/(Headless)?Chrome\/[\d.]+/)?.[0] ?? globalThis.navigator.userAgent}` : `node ${globalThis.process.versions.node}`;

function setting(name) {
  if (isBrowser) return new URL(globalThis.location.href).searchParams.get(name) ?? undefined;
  if (globalThis.Deno) return globalThis.Deno.env.get(name);
  return globalThis.process.env[name];
}

function required(name) {
  const value = setting(name);
  if (!value) throw new Error(`missing setting ${name}`);
  return value;
}

function assert(condition, message) {
  if (!condition) throw new Error(`assertion failed: ${message}`);
}

const isPng = (bytes) => bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47;

/** Every step gets its own deadline: a hang fails the step, it never stalls the smoke. */
async function step(steps, name, run) {
  const started = Date.now();
  // Not AbortSignal.timeout(): Deno keeps the process alive until that timer fires.
  const controller = new AbortController();
  let abortTimer;
  let rejectTimer;
  const deadline = new Promise((_, reject) => {
    abortTimer = setTimeout(() => controller.abort(new Error(`${name} was aborted after ${STEP_TIMEOUT_MS} ms`)), STEP_TIMEOUT_MS);
    rejectTimer = setTimeout(() => reject(new Error(`${name} did not finish within ${STEP_TIMEOUT_MS} ms`)), STEP_TIMEOUT_MS + 1_000);
  });
  try {
    steps[name] = { ...(await Promise.race([run(controller.signal), deadline])), ms: Date.now() - started };
  } finally {
    clearTimeout(abortTimer);
    clearTimeout(rejectTimer);
  }
}

export async function smoke() {
  const started = Date.now();
  const steps = {};
  const cloud = new CloudClient({ baseUrl: required('GRAPHCLOUD_CLOUD_URL'), apiKey: required('GRAPHCLOUD_API_KEY') });
  try {
    await step(steps, 'workflow', async (signal) => {
      let progress = 0;
      const workflow = smokeWorkflow();
      const result = await cloud.runWorkflow(workflow, {
        uploads: { '1.image': { file: new Blob([smokePng()], { type: 'image/png' }), filename: 'smoke.png' } },
        onProgress: () => progress++,
        signal,
      });
      assert(result.status === 'completed', `status ${result.status}`);
      assert(progress > 0, 'progress reported by onProgress');
      const ref = result.outputs['3']?.images?.[0];
      assert(ref && typeof ref.filename === 'string', 'an output image of node 3');
      // The cloud answers /api/view with a 302 to another origin. Browsers hide redirect targets
      // from fetch (opaqueredirect), so the SDK refuses there rather than risk the key.
      let download;
      try {
        const bytes = await cloud.files.get(ref, { signal });
        assert(isPng(bytes), 'the output is a PNG');
        download = `${bytes.byteLength} B png`;
      } catch (error) {
        if (!isBrowser || !/hides redirect targets/.test(String(error?.message))) throw error;
        download = 'refused: the browser hides the 302 target';
      }
      return { promptId: result.promptId, via: result.via, progress, download };
    });

    await step(steps, 'proxyWait', async (signal) => {
      const proxy = new ProxyClient({ baseUrl: required('GRAPHCLOUD_PROXY_URL'), token: required('GRAPHCLOUD_PROXY_TOKEN') });
      const task = await proxy.image.upscale({ image: smokePng(), scale_factor: '2x' }, { signal });
      const result = await proxy.waitForTask(task, { signal, poll: { minDelayMs: 100, maxDelayMs: 500 } });
      assert(result.status === 'COMPLETED' && result.urls.length > 0, `task ${result.status}`);
      return { taskId: result.taskId, status: result.status };
    });

    await step(steps, 'registry', async (signal) => {
      const registry = new RegistryClient({ baseUrl: required('GRAPHCLOUD_REGISTRY_URL'), token: setting('GRAPHCLOUD_REGISTRY_TOKEN') });
      const page = await registry.versions.list({ pageSize: 5 }, { signal });
      assert(page.versions.length > 0 && page.total >= page.versions.length, 'a page of versions');
      return { total: page.total, first: page.versions[0]?.version };
    });
  } catch (error) {
    return { runtime, ok: false, ms: Date.now() - started, steps, error: `${error?.name ?? 'Error'}: ${error?.message ?? error}` };
  } finally {
    await cloud.close();
  }
  return { runtime, ok: true, ms: Date.now() - started, steps };
}

const result = await smoke();
console.log(JSON.stringify(result));
if (isBrowser) globalThis.__smokeResult = result;
else if (!result.ok) {
  // Node, Bun and Deno: a failure sets the exit code; success lets the event loop drain, so a
  // handle the SDK left open shows up as a hang (the runner's timeout), not as a pass.
  if (globalThis.Deno) globalThis.Deno.exitCode = 1;
  else globalThis.process.exitCode = 1;
}
