/**
 * Uploads an image, runs a workflow on the cloud (or a local runtime), prints progress, and saves
 * the output files. Without GRAPHCLOUD_CLOUD_URL it starts the local simulator.
 * Run: GRAPHCLOUD_CLOUD_URL=... GRAPHCLOUD_CLOUD_API_KEY=... npx tsx examples/cloud-run-workflow.ts [image.png]
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CloudClient, InsufficientCreditsError, InvalidWorkflowError, JobFailedError, TimeoutError, WorkflowValidationError, type Workflow } from 'graphcloud';
import { startSimulator } from 'graphcloud/testing';

const sim = process.env.GRAPHCLOUD_CLOUD_URL ? undefined : await startSimulator();
await using cloud = new CloudClient({
  baseUrl: process.env.GRAPHCLOUD_CLOUD_URL ?? sim?.cloudUrl ?? '',
  apiKey: () => process.env.GRAPHCLOUD_CLOUD_API_KEY ?? sim?.apiKey ?? '',
});

const workflow: Workflow = {
  '1': { class_type: 'LoadImage', inputs: { image: 'replaced by the upload' } },
  '2': { class_type: 'ImageScale', inputs: { image: ['1', 0], upscale_method: 'bilinear', width: 64, height: 0, crop: 'disabled' } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'example' } },
};
// A 1x1 PNG when no image path is given.
const input = process.argv[2] ?? new Blob([Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC'), (c) => c.charCodeAt(0))], { type: 'image/png' });

try {
  const result = await cloud.runWorkflow(workflow, {
    uploads: { '1.image': input },
    download: true,
    waitTimeout: 10 * 60_000, // the wait for the job; `timeout` would be each request's
    signal: AbortSignal.timeout(15 * 60_000),
    onProgress: (p) => console.log(`node ${p.node ?? '?'}: ${p.value}/${p.max}`),
  });
  console.log(`job ${result.promptId} ${result.status} (learned via ${result.via}, outputs complete: ${result.outputsComplete})`);
  await mkdir('out', { recursive: true });
  for (const file of result.files ?? []) {
    await writeFile(join('out', file.ref.filename), file.data);
    console.log(`saved out/${file.ref.filename} (${file.data.byteLength} bytes, node ${file.nodeId})`);
  }
} catch (error) {
  if (error instanceof WorkflowValidationError) console.error('rejected:', error.nodeErrors);
  else if (error instanceof InvalidWorkflowError) console.error('not sent:', error.workflowIssues);
  else if (error instanceof JobFailedError) console.error('failed:', error.result.error?.message);
  else if (error instanceof InsufficientCreditsError) console.error('no credits left');
  else if (error instanceof TimeoutError) console.error('gave up waiting; the job may still finish:', error.submitted);
  else throw error;
} finally {
  await sim?.close();
}
