/**
 * The page's script (bundled; see server.ts): pick an image, run a workflow on it through the relay
 * with a progress bar and live previews, show the result, cancel. No API key anywhere in the page.
 */
import { CloudClient, GraphcloudError, JobFailedError, listOutputFiles, type Workflow } from 'graphcloud';

const element = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const file = element<HTMLInputElement>('file');
const runButton = element<HTMLButtonElement>('run');
const cancelButton = element<HTMLButtonElement>('cancel');
const progress = element<HTMLProgressElement>('progress');
const status = element<HTMLDivElement>('status');
const preview = element<HTMLImageElement>('preview');
const result = element<HTMLImageElement>('result');
const resultCaption = element<HTMLElement>('result-caption');

// A path: the relay on this page's own server (graphcloud/server) adds the key there.
const cloud = new CloudClient({ baseUrl: '/api/graphcloud' });

const workflow: Workflow = {
  '1': { class_type: 'LoadImage', inputs: { image: 'replaced by the upload' } },
  '2': { class_type: 'ImageScaleBy', inputs: { image: ['1', 0], upscale_method: 'bilinear', scale_by: 2 } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'browser-example' } },
};

let current: { controller: AbortController; promptId?: string } | undefined;
let previewUrl: string | undefined;

function show(state: 'idle' | 'uploading' | 'running' | 'done' | 'failed' | 'cancelled', text: string): void {
  status.dataset.state = state;
  status.textContent = text;
}

file.addEventListener('change', () => {
  runButton.disabled = !file.files?.length;
  show('idle', file.files?.[0] ? `Ready to scale ${file.files[0].name}.` : 'Pick an image.');
});
runButton.addEventListener('click', () => void run());
cancelButton.addEventListener('click', () => void cancel());

async function run(): Promise<void> {
  const image = file.files?.[0];
  if (!image) return;
  const job: { controller: AbortController; promptId?: string } = { controller: new AbortController() };
  current = job;
  runButton.disabled = true;
  cancelButton.disabled = false;
  progress.value = 0;
  result.removeAttribute('src');
  preview.removeAttribute('src');
  resultCaption.textContent = 'Result';
  preview.dataset.count = '0';
  show('uploading', 'Uploading…');
  try {
    const outcome = await cloud.runWorkflow(workflow, {
      uploads: { '1.image': image },
      signal: job.controller.signal,
      onSubmitted: ({ promptId }) => {
        job.promptId = promptId;
        show('running', 'Queued…');
      },
      onEvent: (event) => {
        if (event.type === 'job_progress') {
          // The SDK's overall progress: nodes done (cached ones too) and the running node's share.
          const { fraction, node, done, total } = event.data;
          progress.value = Math.round(100 * (fraction ?? 0));
          if (node) show('running', `Running node ${node} (${done} of ${total ?? '?'} done)…`);
        } else if (event.type === 'preview') {
          // The bytes are a Uint8Array<ArrayBuffer>: a Blob takes them as they are.
          if (previewUrl) URL.revokeObjectURL(previewUrl);
          previewUrl = URL.createObjectURL(new Blob([event.data.data], { type: event.data.mimeType }));
          preview.src = previewUrl;
          preview.dataset.count = String(Number(preview.dataset.count ?? 0) + 1);
        }
      },
    });
    const [output] = listOutputFiles(outcome.outputs);
    if (!output) throw new GraphcloudError('The workflow finished without an output image');
    // A URL an <img> can load: through the relay, with the job's token (no key).
    result.src = cloud.files.url(output.ref, { promptId: outcome.promptId });
    await result.decode();
    resultCaption.textContent = `Result: ${result.naturalWidth}×${result.naturalHeight}`;
    show('done', 'Done.');
  } catch (error) {
    if ((error instanceof JobFailedError && error.status === 'cancelled') || job.controller.signal.aborted) show('cancelled', 'Cancelled.');
    else show('failed', error instanceof Error ? error.message : String(error));
  } finally {
    if (current === job) current = undefined;
    cancelButton.disabled = true;
    runButton.disabled = !file.files?.length;
  }
}

async function cancel(): Promise<void> {
  const job = current;
  if (!job) return;
  cancelButton.disabled = true;
  // Submitted: the job itself is cancelled (its watcher then settles as cancelled); not yet: the upload stops.
  if (job.promptId) await cloud.jobs.cancel(job.promptId).catch((error: unknown) => show('failed', `Could not cancel: ${String(error)}`));
  else job.controller.abort(new Error('cancelled before submission'));
}
