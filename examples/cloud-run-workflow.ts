/**
 * Uploads an image, runs a workflow on it (LoadImage -> ImageScale -> ImageInvert -> SaveImage),
 * prints its progress, and saves the output files: the picture, twice as wide, in negative.
 *
 *   npx tsx examples/cloud-run-workflow.ts [image.png]   # against the simulator, started in-process
 *
 * Against a deployment (the cloud, or a local runtime), set:
 *   GRAPHCLOUD_CLOUD_URL, GRAPHCLOUD_API_KEY   the server and its platform key (a local runtime may need none)
 *   GRAPHCLOUD_OUTPUT                          the folder the outputs go to (default ./examples-output)
 * Without an image path it uploads examples/assets/photo.png.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CloudClient, GraphcloudError, InsufficientCreditsError, InvalidWorkflowError, JobFailedError, TimeoutError, ValidationError, WorkflowValidationError, type Workflow } from 'graphcloud';
import type { Simulator } from 'graphcloud/testing';

const env = process.env;
const image = process.argv[2] ?? fileURLToPath(new URL('./assets/photo.png', import.meta.url));
const outputDir = env.GRAPHCLOUD_OUTPUT || 'examples-output';
const workflow: Workflow = {
  '1': { class_type: 'LoadImage', inputs: { image: 'replaced by the upload' } },
  '2': { class_type: 'ImageScale', inputs: { image: ['1', 0], upscale_method: 'bilinear', width: 256, height: 0, crop: 'disabled' } },
  '3': { class_type: 'ImageInvert', inputs: { image: ['2', 0] } },
  '4': { class_type: 'SaveImage', inputs: { images: ['3', 0], filename_prefix: 'example' } },
};

let sim: Simulator | undefined;
let cloud: CloudClient | undefined;
try {
  // The simulator is loaded only when no deployment is named.
  sim = env.GRAPHCLOUD_CLOUD_URL ? undefined : await (await import('graphcloud/testing')).startSimulator();
  cloud = new CloudClient({ baseUrl: env.GRAPHCLOUD_CLOUD_URL || sim!.cloudUrl, apiKey: env.GRAPHCLOUD_API_KEY || sim?.apiKey });
  console.log(`running a workflow on ${image} against ${env.GRAPHCLOUD_CLOUD_URL ? new URL(cloud.baseUrl).host : 'the local simulator'}`);
  const result = await cloud.runWorkflow(workflow, {
    uploads: { '1.image': image }, // uploaded first; the node's input is set to the stored name
    download: true,
    waitTimeout: 10 * 60_000, // the wait for the job; `timeout` would be each request's
    signal: AbortSignal.timeout(15 * 60_000),
    onSubmitted: ({ promptId }) => console.log(`submitted job ${promptId}`),
    onProgress: (p) => console.log(`  node ${p.node ?? '?'}: ${p.value}/${p.max}`),
  });
  console.log(`job ${result.promptId} ${result.status} (learned via ${result.via}, outputs complete: ${result.outputsComplete})`);
  await mkdir(outputDir, { recursive: true });
  for (const file of result.files ?? []) {
    const path = join(outputDir, file.ref.filename.replaceAll('/', '_'));
    await writeFile(path, file.data);
    console.log(`saved ${path} (${file.data.byteLength} bytes, node ${file.nodeId})`);
  }
} catch (error) {
  process.exitCode = 1;
  if (error instanceof InvalidWorkflowError) console.error('not sent:', error.workflowIssues);
  else if (error instanceof ValidationError) console.error(`nothing was sent: ${error.message}`);
  else if (error instanceof WorkflowValidationError) console.error('the server refused the workflow:', error.nodeErrors);
  else if (error instanceof JobFailedError) console.error('the job failed:', error.result.error?.message);
  else if (error instanceof InsufficientCreditsError) console.error('no credits left: nothing ran');
  // The job was paid for and may still finish: `submitted` names it, for a later cloud.jobs.get().
  else if (error instanceof TimeoutError) console.error('gave up waiting; the job may still finish:', error.submitted);
  else if (error instanceof GraphcloudError) console.error(`${error.name}: ${error.message}`);
  else console.error(error);
} finally {
  await cloud?.close();
  await sim?.close();
}
