// What one connected browser costs the relay: memory (heap, external, RSS) and sockets.
// The relay runs in a child process (relay-child.ts) in front of the simulator; this process
// opens N browser sockets, each following one job, and reads the child's memory after a forced GC.
//
//   npx tsx test/server/measure/measure-sockets.ts [N=1000]
import { fork } from 'node:child_process';
import { WebSocket } from 'ws';
import { TokenSigner } from '../../../src/server/tokens.js';
import { startSimulator } from '../../../src/testing/index.js';

const N = Number(process.argv[2] ?? 1000);
const SECRET = 'a-measuring-secret-of-at-least-32-characters';
const sim = await startSimulator();
const child = fork(new URL('./relay-child.ts', import.meta.url).pathname, [sim.cloudUrl, sim.apiKey, SECRET], { execArgv: ['--import', 'tsx', '--expose-gc'] });
const ask = <T>(message: object, key: string): Promise<T> =>
  new Promise((resolve) => {
    const on = (reply: Record<string, unknown>) => {
      if (key in reply) {
        child.off('message', on);
        resolve(reply as T);
      }
    };
    child.on('message', on);
    if (Object.keys(message).length > 0) child.send(message);
  });
const { port } = await ask<{ port: number }>({}, 'port');
const url = `ws://127.0.0.1:${port}/api/graphcloud/ws`;
const signer = new TokenSigner([SECRET], 3_600_000);

const sockets: WebSocket[] = [];
async function connect(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const ws = new WebSocket(url);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    ws.send(JSON.stringify({ type: 'graphcloud_subscribe', data: { token: await signer.sign('job', crypto.randomUUID()) } }));
    await new Promise((resolve) => ws.once('message', resolve));
    sockets.push(ws);
  }
}
type Reading = { memory: Record<string, number>; stats: { browsers: number; subscriptions: number } };
// One browser first: the upstream socket and the code paths are warm in the baseline.
await connect(1);
const before = await ask<Reading>({ type: 'memory' }, 'memory');
await connect(N);
const after = await ask<Reading>({ type: 'memory' }, 'memory');
const per = (name: string) => ((after.memory[name]! - before.memory[name]!) / N / 1024).toFixed(1);
console.log(`${N} browsers, each following one job; relay process (${after.stats.browsers} browser sockets, ${after.stats.subscriptions} subscriptions, 1 upstream socket)`);
console.log(`per browser: heap ${per('heapUsed')} KiB, external ${per('external')} KiB, RSS ${per('rss')} KiB`);
console.log(`totals: RSS ${(before.memory.rss! / 2 ** 20).toFixed(1)} -> ${(after.memory.rss! / 2 ** 20).toFixed(1)} MiB, heap ${(before.memory.heapUsed! / 2 ** 20).toFixed(1)} -> ${(after.memory.heapUsed! / 2 ** 20).toFixed(1)} MiB`);
for (const ws of sockets) ws.terminate();
child.send({ type: 'exit' });
await new Promise((resolve) => child.once('exit', resolve));
await sim.close();
