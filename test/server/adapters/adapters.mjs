// The runtime adapters for real: the relay served by Deno (Deno.upgradeWebSocket) and by Bun
// (server.upgrade) in front of the simulator, driven from Node: a refused request, a run submitted
// over HTTP and watched on the socket, its output fetched. Built package only (npm run build first).
//
//   node test/server/adapters/adapters.mjs [path to deno] [path to bun]
// (defaults: the runtimes scripts/e2e-runtimes.mjs installs in .ci/.tools)
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { encodePng, startSimulator } from 'graphcloud/testing';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const serve = fileURLToPath(new URL('./serve.mjs', import.meta.url));
const runtimes = [
  ['deno', process.argv[2] ?? `${root}.ci/.tools/deno/node_modules/.bin/deno`, ['run', '-A', serve]],
  ['bun', process.argv[3] ?? `${root}.ci/.tools/bun/node_modules/.bin/bun`, ['run', serve]],
];
const secret = 'an-adapter-secret-of-at-least-32-characters';
const sim = await startSimulator({ stepDelayMs: 2, progressSteps: 2 });
const rows = [];
for (const [name, bin, args] of runtimes) {
  if (!existsSync(bin)) {
    rows.push({ name, ok: false, detail: `no ${name} at ${bin}` });
    continue;
  }
  const child = spawn(bin, [...args, sim.cloudUrl, sim.apiKey, secret], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const { port, runtime } = await new Promise((resolve, reject) => {
      child.stdout.once('data', (chunk) => resolve(JSON.parse(String(chunk))));
      child.once('exit', (code) => reject(new Error(`${name} exited (${code})`)));
    });
    rows.push({ name, ok: true, ...(await drive(`http://127.0.0.1:${port}/api/graphcloud`, rows.length)), runtime });
  } catch (error) {
    rows.push({ name, ok: false, detail: error.message });
  } finally {
    child.kill();
  }
}
await sim.close();
console.log(JSON.stringify(rows, null, 2));
process.exitCode = rows.every((row) => row.ok) ? 0 : 1;

async function drive(relay, seed) {
  const headers = { cookie: 'session=ok' };
  const refused = (await fetch(`${relay}/api/object_info`)).status;
  if (refused !== 401) throw new Error(`an anonymous request got ${refused}`);
  const form = new FormData();
  // Another image per runtime: the simulator would serve a second identical run from its cache.
  form.append('image', new Blob([encodePng(10, 8, [seed, 2, 3])], { type: 'image/png' }), 'in.png');
  const { name } = await (await fetch(`${relay}/api/upload/image`, { method: 'POST', body: form, headers })).json();
  const ws = new WebSocket(`${relay.replace('http', 'ws')}/ws`, { headers });
  ws.binaryType = 'arraybuffer';
  const messages = [];
  let previews = 0;
  const ended = new Promise((resolve, reject) => {
    ws.on('message', (data, binary) => {
      if (binary) return void previews++;
      const message = JSON.parse(String(data));
      messages.push(message.type);
      if (message.type === 'executing' && message.data.node === null) resolve();
    });
    ws.on('close', (code) => reject(new Error(`socket closed (${code})`)));
  });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const prompt = {
    '1': { class_type: 'LoadImage', inputs: { image: name } },
    '2': { class_type: 'ImageScaleBy', inputs: { image: ['1', 0], upscale_method: 'bilinear', scale_by: 2 } },
    '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'adapter' } },
  };
  const answer = await (await fetch(`${relay}/api/prompt`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ prompt }) })).json();
  ws.send(JSON.stringify({ type: 'graphcloud_subscribe', data: { token: answer.relay_token } }));
  await ended;
  ws.close();
  const output = sim.state.jobs().find((job) => job.id === answer.prompt_id).outputs['3'].images[0];
  const file = await fetch(`${relay}/api/view?${new URLSearchParams({ ...output, job: answer.relay_token })}`, { headers });
  const bytes = new Uint8Array(await file.arrayBuffer());
  const view = new DataView(bytes.buffer);
  const size = `${view.getUint32(16)}x${view.getUint32(20)}`;
  if (file.status !== 200 || size !== '20x16') throw new Error(`the output came back ${file.status} ${size}`);
  if (!messages.includes('progress') || previews === 0) throw new Error(`missing live events: ${messages.join(' ')}, ${previews} previews`);
  return { messages: messages.length, previews, output: size, slowBody: await dripBody(`${relay}/api/prompt`, headers) };
}

// A body sent one byte a second: the relay's bodyTimeoutMs (1 s in serve.mjs) answers 408 on every runtime.
function dripBody(url, headers) {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json', 'content-length': '1000' } }, (res) => {
      clearInterval(drip);
      res.resume();
      req.destroy();
      if (res.statusCode === 408) resolve(`408 after ${sent} bytes`);
      else reject(new Error(`a dripping body got ${res.statusCode}`));
    });
    let sent = 0;
    const drip = setInterval(() => void (sent < 10 ? (req.write('{'), sent++) : (clearInterval(drip), reject(new Error('a dripping body was not refused within 10 s')))), 1_000);
    req.on('error', (error) => (sent > 0 ? undefined : reject(error)));
  });
}
