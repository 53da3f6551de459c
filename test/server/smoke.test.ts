import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/testing/index.js';
import { openSocket, png, scaleByWorkflow, startRelay, submit, upload, type RunningRelay } from './helpers.js';

describe('relay smoke', () => {
  let sim: Simulator;
  let relay: RunningRelay;
  beforeAll(async () => {
    sim = await startSimulator({ stepDelayMs: 1, progressSteps: 2 });
    relay = await startRelay(sim);
  });
  afterAll(async () => {
    await relay.close();
    await sim.close();
  });

  it('runs a job end to end', async () => {
    const socket = await openSocket(relay.url);
    const name = await upload(relay.url, png(20, 10));
    const answer = await submit(relay.url, scaleByWorkflow(name));
    socket.subscribe(answer.relay_token);
    await socket.next((m) => m.type === 'execution_success');
    const executed = await socket.next((m) => m.type === 'executed');
    const image = (executed.data.output as { images: { filename: string; subfolder: string; type: string }[] }).images[0]!;
    const query = new URLSearchParams({ ...image, job: answer.relay_token });
    const file = await fetch(`${relay.url}/api/view?${query}`);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');
    const bytes = new Uint8Array(await file.arrayBuffer());
    const view = new DataView(bytes.buffer);
    expect([view.getUint32(16), view.getUint32(20)]).toEqual([40, 20]);
    expect(socket.binaries.length).toBeGreaterThan(0);
    socket.ws.close();
  });
});
