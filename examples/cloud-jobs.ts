/**
 * A workflow as it was saved from the web UI, run and controlled: load the file, set its inputs by
 * node title, run it with an upload, cancel a second run, list your recent jobs, and save the
 * outputs into a folder.
 *
 *   npx tsx examples/cloud-jobs.ts [image.png]   # against the simulator, started in-process
 *
 * Against a deployment (the cloud, or a local runtime), set:
 *   GRAPHCLOUD_CLOUD_URL, GRAPHCLOUD_API_KEY   the server and its platform key (a local runtime may need none)
 *   GRAPHCLOUD_WORKFLOW                        a UI-format workflow file (default examples/workflows/resize.json,
 *                                              which needs the built-in LoadImage, ImageScale and SaveImage nodes)
 *   GRAPHCLOUD_OUTPUT                          the folder the outputs go to (default ./examples-output/<prompt id>)
 * Without an image path it uploads examples/assets/photo.png.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CloudClient, GraphcloudError, InvalidWorkflowError, JobFailedError, WorkflowAddressError, WorkflowConversionError, WorkflowValidationError } from 'graphcloud';
import type { Simulator } from 'graphcloud/testing';

const env = process.env;
const file = env.GRAPHCLOUD_WORKFLOW || fileURLToPath(new URL('./workflows/resize.json', import.meta.url));
const photo = process.argv[2] ?? fileURLToPath(new URL('./assets/photo.png', import.meta.url));

let sim: Simulator | undefined;
let cloud: CloudClient | undefined;
try {
  const saved: unknown = JSON.parse(await readFile(file, 'utf8'));
  // The simulator is loaded only when no deployment is named.
  sim = env.GRAPHCLOUD_CLOUD_URL ? undefined : await (await import('graphcloud/testing')).startSimulator();
  cloud = new CloudClient({ baseUrl: env.GRAPHCLOUD_CLOUD_URL || sim!.cloudUrl, apiKey: env.GRAPHCLOUD_API_KEY || sim?.apiKey });

  // runWorkflow converts the UI format itself (with the server's node definitions, fetched once),
  // and checks every address ("<node title>.<input>") before uploading anything.
  const result = await cloud.runWorkflow(saved as CloudClient.UiWorkflow, {
    uploads: { 'Photo.image': { file: photo, filename: 'photo.png' } },
    inputs: { 'Resize.width': 128, 'Save.filename_prefix': 'resized' },
    onSubmitted: ({ promptId }) => console.log(`submitted ${promptId}`),
    onProgress: (p) => console.log(`  node ${p.node ?? '?'}: ${p.value}/${p.max}`),
    waitTimeout: 10 * 60_000,
  });
  console.log(`run ${result.promptId} ${result.status}`);

  // A second run, given up right after it was submitted: cancelOnAbort (the default) cancels the
  // job on the server, so no GPU time is paid for a result nobody waits for.
  const stop = new AbortController();
  let second = '';
  await cloud
    .runWorkflow(saved as CloudClient.UiWorkflow, {
      uploads: { 'Photo.image': { file: photo, filename: 'photo.png' } },
      inputs: { 'Resize.width': 256 },
      signal: stop.signal,
      onSubmitted: ({ promptId }) => {
        second = promptId;
        stop.abort(new Error('changed my mind'));
      },
    })
    .catch((error: unknown) => {
      if (error !== stop.signal.reason) throw error; // anything but our own abort is a real failure
      console.log(`second run ${second} given up: ${stop.signal.reason.message}`);
    });
  // A running job stops at the next node; a pending one is removed from the queue (and a local
  // runtime forgets it). Look until the server says it has ended.
  let job = await cloud.jobs.get(second);
  for (let look = 0; job && !['completed', 'failed', 'cancelled'].includes(job.status) && look < 50; look++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    job = await cloud.jobs.get(second);
  }
  console.log(`second run is now ${job?.status ?? 'gone from the server (removed before it ran)'}`);

  console.log('your latest jobs:');
  let shown = 0;
  for await (const item of cloud.jobs.listAll({ limit: 5 })) {
    const when = item.createdAt === undefined ? '?' : new Date(item.createdAt).toISOString();
    console.log(`  ${item.promptId}  ${item.status.padEnd(11)} ${when}${item.durationMs === undefined ? '' : `  ${item.durationMs} ms`}`);
    if (++shown === 5) break; // no further page is fetched
  }

  const folder = env.GRAPHCLOUD_OUTPUT || join('examples-output', result.promptId);
  for (const output of await cloud.files.saveOutputs(result, folder)) console.log(`saved ${output.path} (${output.bytes} bytes, node ${output.nodeId})`);
} catch (error) {
  if (error instanceof WorkflowConversionError) console.error(`cannot convert the workflow: ${error.message}`);
  else if (error instanceof WorkflowAddressError) console.error(`${error.message}`);
  else if (error instanceof InvalidWorkflowError) console.error('not sent:', error.workflowIssues);
  else if (error instanceof WorkflowValidationError) console.error(error.message);
  else if (error instanceof JobFailedError) console.error(`failed: ${error.result.error?.message}`);
  else if (error instanceof GraphcloudError) console.error(`${error.name}: ${error.message}`);
  else console.error(error); // a workflow file that is missing or not JSON
  process.exitCode = 1;
} finally {
  await cloud?.close();
  await sim?.close();
}
