/**
 * Upscales a local image through the media proxy, follows the task, and prints the result URL.
 * The SDK checks every documented limit first (the 25.3-megapixel ceiling included), so a bad
 * request costs nothing. Ctrl-C stops waiting (the task itself runs on: there is no cancel route).
 *
 * Run against the simulator: npx graphcloud sim (or npx tsx src/cli/main.ts sim), then
 *   GRAPHCLOUD_PROXY_URL=http://127.0.0.1:<port+1> GRAPHCLOUD_TOKEN=<token> npx tsx examples/proxy-upscale.ts ./photo.png 4x
 */
import { ProxyClient, TaskFailedError, TimeoutError, ValidationError } from 'graphcloud';

const [input = 'https://picsum.photos/512', scale = '2x'] = process.argv.slice(2);
// `await using` closes the client (and ends any wait) when the script ends.
await using proxy = new ProxyClient({
  baseUrl: process.env.GRAPHCLOUD_PROXY_URL ?? 'http://127.0.0.1:8788',
  token: () => process.env.GRAPHCLOUD_TOKEN ?? '',
});

const controller = new AbortController();
process.once('SIGINT', () => controller.abort(new Error('stopped waiting (the task goes on)')));

try {
  const task = await proxy.image.upscale(
    {
      // A string is sent as it is (URL or Base64); a file must be wrapped so text is never read from disk.
      image: /^https?:\/\//.test(input) ? input : { path: input },
      scale_factor: scale === '4x' || scale === '8x' || scale === '16x' ? scale : '2x',
      optimized_for: 'films_n_photography',
    },
    { signal: controller.signal },
  );
  console.log(`submitted ${task.kind} task ${task.taskId} (${task.status})`);

  const result = await proxy.waitForTask(task, {
    signal: controller.signal,
    waitTimeout: 15 * 60_000,
    onUpdate: (status) => console.log(`  ${status.phase} (${status.status})`),
  });
  console.log(`done: ${result.urls.join(', ')}`);
} catch (error) {
  if (error instanceof ValidationError) console.error('nothing was sent:', error.issues);
  else if (error instanceof TaskFailedError) console.error(`task ${error.taskId} ${error.reason}`, error.errCode ?? '');
  // The task was paid for and runs on: `submitted` names it, for a later proxy.waitForTask(submitted).
  else if (error instanceof TimeoutError) console.error(error.message, error.submitted);
  else throw error;
  process.exitCode = 1;
}
