// How many files of src/ one `runWorkflow()` runs code in: one upload, the socket, one download
// of its output, against the simulator in this process. V8's precise coverage is reset just before
// the call and read just after it, so module loading and the client's construction are not
// counted (a module first loaded during the call is: its top level runs then); src/testing (the
// simulator) is left out. Prints the files, grouped by folder, and their count.
// Run: npx tsx scripts/run-files.ts
import { Session } from 'node:inspector/promises';
import { fileURLToPath } from 'node:url';
import { relative } from 'node:path';
import { CloudClient, type Workflow } from '../src/index.js';
import { encodePng, startSimulator } from '../src/testing/index.js';

const TARGET = 20; // issue 33; docs/architecture.md says why 25 stay
const root = fileURLToPath(new URL('..', import.meta.url));
const sim = await startSimulator({ stepDelayMs: 1, progressSteps: 2 });
const cloud = new CloudClient({ baseUrl: sim.cloudUrl, apiKey: sim.apiKey });
const workflow: Workflow = {
  '1': { class_type: 'LoadImage', inputs: { image: 'placeholder.png' } },
  '2': { class_type: 'ImageScale', inputs: { image: ['1', 0], upscale_method: 'bilinear', width: 32, height: 0, crop: 'disabled' } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'files' } },
};
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
await session.post('Profiler.takePreciseCoverage'); // resets the counters

const result = await cloud.runWorkflow(workflow, { uploads: { '1.image': encodePng(16, 16, [10, 120, 200]) } });
const image = (result.outputs['3'] as { images?: { filename: string; subfolder: string; type: 'output' }[] } | undefined)?.images?.[0];
if (!image) throw new Error('the run saved no image');
await cloud.files.get(image);

const { result: scripts } = await session.post('Profiler.takePreciseCoverage');
await session.post('Profiler.stopPreciseCoverage');
session.disconnect();
await cloud.close();
await sim.close();

const files = scripts
  .filter((script) => script.url.startsWith('file://') && script.functions.some((fn) => fn.ranges.some((range) => range.count > 0)))
  .map((script) => relative(root, fileURLToPath(script.url)))
  .filter((file) => file.startsWith('src/') && !file.startsWith('src/testing/'))
  .sort();
const folders = new Map<string, string[]>();
for (const file of files) {
  const folder = file.slice(0, file.lastIndexOf('/'));
  folders.set(folder, [...(folders.get(folder) ?? []), file.slice(folder.length + 1)]);
}
for (const [folder, names] of folders) console.log(`${folder}/ (${names.length}): ${names.join(', ')}`);
console.log(`\n| files of src/ one runWorkflow() runs code in (upload, socket, download) | target |\n|---|---|\n| ${files.length} | ≤ ${TARGET} |`);
