/**
 * Delay from the server sending `execution_success` to `cloud.runWorkflow()` resolving, over a
 * real loopback socket (a `ws` server and a `node:http` server in this process, so both ends read
 * the same clock). 300 sequential runs after 20 warm-up runs. Target: median at most 2 ms.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { CloudClient } from '../src/index.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 300);
const WARM_UP = 20;
const TARGET_MS = 2;

let socket: WebSocket | undefined;
let sentAt = 0;
let counter = 0;
const http = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const promptId = `p${++counter}`;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ prompt_id: promptId, number: counter, node_errors: {} }));
    // The run happens after the submit answer, like a queued job.
    setTimeout(() => {
      socket?.send(JSON.stringify({ type: 'execution_start', data: { prompt_id: promptId } }));
      socket?.send(JSON.stringify({ type: 'executed', data: { prompt_id: promptId, node: '9', output: { images: [{ filename: 'a.png', subfolder: '', type: 'output' }] } } }));
      sentAt = performance.now();
      socket?.send(JSON.stringify({ type: 'execution_success', data: { prompt_id: promptId } }));
    }, 2);
  });
});
const wss = new WebSocketServer({ server: http });
wss.on('connection', (ws) => (socket = ws));
await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
const cloud = new CloudClient({ baseUrl: `http://127.0.0.1:${(http.address() as AddressInfo).port}`, apiKey: 'bench-key' });

// validate: false below: this server has no node definitions, and the check is not what is measured.
const workflow = { '9': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'x' } } };
const delays: number[] = [];
for (let i = 0; i < WARM_UP + RUNS; i++) {
  await cloud.runWorkflow(workflow, { validate: false });
  const delay = performance.now() - sentAt;
  if (i >= WARM_UP) delays.push(delay);
}
await cloud.close();
wss.close();
http.close();

delays.sort((a, b) => a - b);
const at = (q: number) => delays[Math.min(delays.length - 1, Math.floor(q * delays.length))] ?? Number.NaN;
const median = at(0.5);
console.log('| metric | value | target | met |');
console.log('|---|---|---|---|');
console.log(`| runs | ${RUNS} (after ${WARM_UP} warm-up) | | |`);
console.log(`| median delay, execution_success sent → runWorkflow resolved | ${median.toFixed(3)} ms | ≤ ${TARGET_MS} ms | ${median <= TARGET_MS ? 'yes' : 'no'} |`);
console.log(`| p90 | ${at(0.9).toFixed(3)} ms | | |`);
console.log(`| p99 | ${at(0.99).toFixed(3)} ms | | |`);
process.exitCode = median <= TARGET_MS ? 0 : 1;
