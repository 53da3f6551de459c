/**
 * Memory of a large upload: `cloud.files.upload(path)` of a 1 GiB sparse file to a `node:http`
 * server on 127.0.0.1 (a child process, so only the client's memory is measured) that discards
 * the body. Samples RSS during the upload; the file must be streamed from disk, never read whole.
 * A 256 MiB upload follows: the growth must not depend on the file size.
 * Target: peak RSS growth at most 64 MB.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudClient } from '../src/index.js';

// The first (1 MiB) upload warms up fetch, FormData and the JIT; it is not compared to the target.
const SIZES = [1024 ** 2, Number(process.env.BENCH_UPLOAD_BYTES ?? 1024 ** 3), 256 * 1024 ** 2];
const TARGET_MB = 64;

const serverCode = `
const { createServer } = require('node:http');
let received = 0;
const server = createServer((req, res) => {
  req.on('data', (chunk) => (received += chunk.length));
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'x-received': String(received) });
    res.end(JSON.stringify({ name: 'big.png', subfolder: '', type: 'input' }));
    received = 0;
  });
});
server.listen(0, '127.0.0.1', () => process.send(server.address().port));
`;
const child = spawn(process.execPath, ['-e', serverCode], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const port = await new Promise<number>((resolve) => child.once('message', (m) => resolve(Number(m))));
let lastReceived = 0;
const cloud = new CloudClient({
  baseUrl: `http://127.0.0.1:${port}`,
  apiKey: 'bench-key',
  timeout: 600_000,
  onResponse: () => undefined,
  fetch: async (input, init) => {
    const response = await fetch(input, init);
    lastReceived = Number(response.headers.get('x-received') ?? 0);
    return response;
  },
});
const dir = await mkdtemp(join(tmpdir(), 'graphcloud-bench-'));
const rows: string[] = [];
let met = true;
try {
  for (const size of SIZES) {
    const file = join(dir, `big-${size}.png`);
    const handle = await open(file, 'w');
    await handle.truncate(size); // sparse: no disk blocks written
    await handle.close();
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 5);
    const started = performance.now();
    const result = await cloud.files.upload(file);
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    await rm(file);
    const growthMb = (rssPeak - rssBefore) / 1024 / 1024;
    const complete = lastReceived > size && result.name === 'big.png';
    const warmUp = size === SIZES[0];
    const ok = complete && (warmUp || growthMb <= TARGET_MB);
    met &&= ok;
    if (warmUp) continue;
    rows.push(`| ${(size / 1024 ** 2).toFixed(0)} MiB | ${lastReceived.toLocaleString('en')} | ${growthMb.toFixed(1)} MB | ${((size / 1024 ** 2) / seconds).toFixed(0)} MiB/s | ≤ ${TARGET_MB} MB | ${ok ? 'yes' : 'no'} |`);
  }
} finally {
  await cloud.close();
  child.kill();
  await rm(dir, { recursive: true, force: true });
}
console.log('| file (sparse) | bytes the server received | peak RSS growth | throughput | target | met |');
console.log('|---|---|---|---|---|---|');
for (const row of rows) console.log(row);
process.exitCode = met ? 0 : 1;
