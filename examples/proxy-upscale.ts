/**
 * Upscales a local image through the media proxy, follows the task, prints the result URL and
 * saves the result. The SDK checks every documented limit first (the 25.3-megapixel ceiling
 * included), so a bad request costs nothing. Ctrl-C stops waiting (the task itself runs on: there
 * is no cancel route).
 *
 *   npx tsx examples/proxy-upscale.ts [image.png] [2x|4x|8x|16x]   # against the simulator, started in-process
 *
 * Against a real proxy, set (an upscale costs credits):
 *   GRAPHCLOUD_PROXY_URL, GRAPHCLOUD_PROXY_TOKEN   the media proxy and its Bearer token
 *   GRAPHCLOUD_OUTPUT                              the folder the result goes to (default ./examples-output)
 * Without an image path it sends examples/assets/photo.png.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GraphcloudError, ProxyClient, TaskFailedError, TimeoutError, ValidationError } from 'graphcloud';
import type { Simulator } from 'graphcloud/testing';

const env = process.env;
const [input = fileURLToPath(new URL('./assets/photo.png', import.meta.url)), scale = '2x'] = process.argv.slice(2);
const outputDir = env.GRAPHCLOUD_OUTPUT || 'examples-output';
const controller = new AbortController();
const onSigint = (): void => controller.abort(new Error('stopped waiting (the task goes on)'));
process.once('SIGINT', onSigint);

let sim: Simulator | undefined;
let proxy: ProxyClient | undefined;
try {
  if (env.GRAPHCLOUD_PROXY_URL && !env.GRAPHCLOUD_PROXY_TOKEN) throw new Error('GRAPHCLOUD_PROXY_URL is set but GRAPHCLOUD_PROXY_TOKEN is not');
  // The simulator is loaded only when no proxy is named; its tasks take a second, so poll faster.
  sim = env.GRAPHCLOUD_PROXY_URL ? undefined : await (await import('graphcloud/testing')).startSimulator({ taskDurationMs: 1_000 });
  proxy = new ProxyClient({
    baseUrl: env.GRAPHCLOUD_PROXY_URL || sim!.proxyUrl,
    token: env.GRAPHCLOUD_PROXY_TOKEN || sim!.token,
    wait: sim ? { poll: { minDelayMs: 250, maxDelayMs: 500 } } : undefined,
  });

  const task = await proxy.image.upscale(
    {
      // A string is sent as it is (URL or Base64); a file must be wrapped so text is never read from disk.
      image: /^https?:\/\//.test(input) ? input : { path: input },
      scale_factor: scale === '4x' || scale === '8x' || scale === '16x' ? scale : '2x',
      optimized_for: 'films_n_photography',
    },
    { signal: controller.signal },
  );
  console.log(`submitted ${task.kind} task ${task.taskId} (${task.status}), upscaling ${input}`);

  const result = await proxy.waitForTask(task, {
    signal: controller.signal,
    waitTimeout: 15 * 60_000,
    onUpdate: (status) => console.log(`  ${status.phase} (${status.status})`),
  });
  console.log(`done: ${result.urls.join(', ')}`);
  // Result URLs are signed: they are fetched without credentials.
  const response = await fetch(result.urls[0]!, { signal: controller.signal });
  if (!response.ok) throw new Error(`downloading the result answered ${response.status}`);
  await mkdir(outputDir, { recursive: true });
  const path = join(outputDir, `upscaled-${result.taskId}.png`);
  await writeFile(path, new Uint8Array(await response.arrayBuffer()));
  console.log(`saved ${path}`);
} catch (error) {
  process.exitCode = 1;
  if (error instanceof ValidationError) console.error(`nothing was sent: ${error.message}`);
  else if (error instanceof TaskFailedError) console.error(`task ${error.taskId} ${error.reason}`, error.errCode ?? '');
  // The task was paid for and runs on: `submitted` names it, for a later proxy.waitForTask(submitted).
  else if (error instanceof TimeoutError) console.error(error.message, error.submitted);
  else if (error instanceof GraphcloudError) console.error(`${error.name}: ${error.message}`);
  else console.error(error instanceof Error ? error.message : error);
} finally {
  process.off('SIGINT', onSigint);
  await proxy?.close();
  await sim?.close();
}
