import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/testing/index.js';
import { TokenSigner } from '../../src/server/tokens.js';
import { openSocket, png, relayStarter, scaleByWorkflow, SECRET, submit, upload, type RunningRelay, type TestSocket } from './helpers.js';

/** The prompt id a binary frame names (type 4 metadata), or its type for the others. */
function framePrompt(bytes: Uint8Array): string {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const type = view.getUint32(0);
  if (type !== 4) return `type ${type}`;
  const length = view.getUint32(4);
  return (JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + length))) as { prompt_id: string }).prompt_id;
}

describe('relay: the socket', () => {
  let sim: Simulator;
  const sockets: TestSocket[] = [];
  const start = relayStarter(() => sim);
  const connect = async (relay: RunningRelay, headers?: Record<string, string>) => {
    const socket = await openSocket(relay.url, headers);
    sockets.push(socket);
    return socket;
  };

  beforeAll(async () => {
    sim = await startSimulator({ stepDelayMs: 1, progressSteps: 2 });
  });
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.ws.terminate();
    sim.faults.reset();
  });
  afterAll(() => sim.close());

  it('two instances sharing the secret: submit through one, watch through the other, and see only that job', async () => {
    const a = await start();
    const b = await start();
    const watcher = await connect(b);
    const bystander = await connect(b);
    const name = await upload(a.url, png(12, 6));
    const mine = await submit(a.url, scaleByWorkflow(name, 2, 'mine'));
    const theirs = await submit(a.url, scaleByWorkflow(name, 3, 'theirs'));
    watcher.subscribe(mine.relay_token);
    await watcher.next((m) => m.type === 'executing' && m.data.node === null && m.data.prompt_id === mine.prompt_id);
    await sim.state.waitForIdle();

    const types = watcher.texts.filter((m) => m.data.prompt_id !== undefined).map((m) => m.type);
    expect(types[0]).toBe('execution_start');
    expect(types).toContain('progress');
    expect(types).toContain('executed');
    expect(types.slice(-2)).toEqual(['execution_success', 'executing']);
    for (const message of watcher.texts) {
      if (message.data.prompt_id !== undefined) expect(message.data.prompt_id).toBe(mine.prompt_id);
    }
    expect(watcher.texts.some((m) => m.type === 'graphcloud_subscribed' && m.data.job === mine.prompt_id)).toBe(true);
    // Previews, held like the text until the subscription: type 4 (the relay asks upstream for metadata), all of this job.
    expect(watcher.binaries.length).toBeGreaterThan(0);
    expect(new Set(watcher.binaries.map(framePrompt))).toEqual(new Set([mine.prompt_id]));
    expect(theirs.prompt_id).not.toBe(mine.prompt_id);
    // A socket that subscribed to nothing gets the queue state only.
    expect(bystander.binaries).toEqual([]);
    expect(new Set(bystander.texts.map((m) => m.type))).toEqual(new Set(['status']));
    expect(b.relay.stats()).toMatchObject({ browsers: 2, subscriptions: 1, upstream: 'open' });
  });

  it('holds the messages of a run that ended before the subscription, and hands them out once', async () => {
    const relay = await start();
    const socket = await connect(relay);
    const name = await upload(relay.url, png(5, 5, 3));
    sim.faults.set({ finishBeforeResponse: true });
    const answer = await submit(relay.url, scaleByWorkflow(name, 2, 'fast'));
    sim.faults.reset();
    // The run ended before its answer named it; the instance holds it.
    expect(relay.relay.stats().held.prompts).toBeGreaterThan(0);
    socket.subscribe(answer.relay_token);
    await socket.next((m) => m.type === 'graphcloud_subscribed');
    const mine = socket.texts.filter((m) => m.data.prompt_id === answer.prompt_id).map((m) => m.type);
    expect(mine[0]).toBe('execution_start');
    expect(mine.slice(-2)).toEqual(['execution_success', 'executing']);
    const again = await connect(relay);
    again.subscribe(answer.relay_token);
    await again.next((m) => m.type === 'graphcloud_subscribed');
    expect(again.texts.filter((m) => m.data.prompt_id === answer.prompt_id)).toEqual([]);
  });

  it('hands the held previews of such a run out among its messages, in the order they were sent', async () => {
    const relay = await start();
    const socket = await connect(relay);
    const name = await upload(relay.url, png(5, 5, 7));
    sim.faults.set({ finishBeforeResponse: true });
    const answer = await submit(relay.url, scaleByWorkflow(name, 2, 'fast-previews'));
    sim.faults.reset();
    socket.subscribe(answer.relay_token);
    await socket.next((m) => m.type === 'graphcloud_subscribed');
    const mine = socket.raw.flatMap((frame) => {
      if (typeof frame !== 'string') return framePrompt(frame) === answer.prompt_id ? ['preview'] : [];
      const message = JSON.parse(frame) as { type: string; data: { prompt_id?: string } };
      return message.data.prompt_id === answer.prompt_id ? [message.type] : [];
    });
    expect(mine).toContain('preview');
    // A browser stops following a job at its end: a preview handed out after it would be lost.
    expect(mine.lastIndexOf('preview')).toBeLessThan(mine.indexOf('execution_success'));
    mine.forEach((type, i) => type === 'preview' && expect(mine[i - 1]).toMatch(/^(progress|preview)$/));
  });

  it('answers a bad token with an error message, and follows nothing', async () => {
    const relay = await start();
    const socket = await connect(relay);
    const task = await new TokenSigner([SECRET], 60_000).sign('task', 't-1');
    const foreign = await new TokenSigner(['x'.repeat(40)], 60_000).sign('job', 'p-1');
    for (const token of ['garbage', task, foreign]) socket.subscribe(token);
    socket.ws.send('{"type":"graphcloud_subscribe","data":{}}');
    socket.ws.send('not json');
    socket.ws.send(new Uint8Array([1, 2, 3]));
    await socket.next(() => socket.texts.filter((m) => m.type === 'graphcloud_error').length === 4);
    expect(socket.texts.filter((m) => m.type === 'graphcloud_error').map((m) => m.data.code)).toEqual(['job_token_invalid', 'job_token_invalid', 'job_token_invalid', 'job_token_invalid']);
    expect(relay.relay.stats().subscriptions).toBe(0);
  });

  it('caps the jobs one socket follows', async () => {
    const relay = await start({ socket: { maxSubscriptions: 1 } });
    const socket = await connect(relay);
    const signer = new TokenSigner([SECRET], 60_000);
    socket.subscribe(await signer.sign('job', 'p-running'));
    await socket.next((m) => m.type === 'graphcloud_subscribed');
    socket.subscribe(await signer.sign('job', 'p-next'));
    const refused = await socket.next((m) => m.type === 'graphcloud_error');
    expect(refused.data).toMatchObject({ code: 'subscription_limit', job: 'p-next' });
  });

  it('lets an ended job make room for the next one', async () => {
    const relay = await start({ socket: { maxSubscriptions: 1 } });
    const socket = await connect(relay);
    const name = await upload(relay.url, png(3, 3, 4));
    const first = await submit(relay.url, scaleByWorkflow(name, 2, 'one'));
    socket.subscribe(first.relay_token);
    await socket.next((m) => m.type === 'executing' && m.data.node === null && m.data.prompt_id === first.prompt_id);
    const second = await submit(relay.url, scaleByWorkflow(name, 3, 'two'));
    socket.subscribe(second.relay_token);
    await socket.next((m) => m.type === 'graphcloud_subscribed' && m.data.job === second.prompt_id);
    await socket.next((m) => m.type === 'execution_success' && m.data.prompt_id === second.prompt_id);
  });

  it('refuses an unauthorized upgrade and another site’s page', async () => {
    const relay = await start({ authorize: (request) => request.headers.get('cookie') === 'session=ok' });
    await expect(openSocket(relay.url)).rejects.toThrow('upgrade refused: 401');
    await expect(openSocket(relay.url, { cookie: 'session=ok', origin: 'https://evil.example' })).rejects.toThrow('upgrade refused: 403');
    const ok = await connect(relay, { cookie: 'session=ok', origin: relay.origin });
    expect(ok.ws.readyState).toBe(ok.ws.OPEN);
  });

  it('closes the browsers’ sockets with 1013 when the upstream drops, and takes them back once it is up', async () => {
    const relay = await start({ socket: { reconnect: { minDelayMs: 50, maxDelayMs: 100 } } });
    const socket = await connect(relay);
    sim.faults.dropSockets();
    expect((await socket.closed).code).toBe(1013);
    const again = await connect(relay);
    expect(again.ws.readyState).toBe(again.ws.OPEN);
  });

  it('answers 503 when its upstream socket does not open in time', async () => {
    sim.faults.refuseSockets(60_000);
    const relay = await start({ socket: { openTimeoutMs: 200 } });
    await expect(openSocket(relay.url)).rejects.toThrow('upgrade refused: 503');
    expect(relay.relay.stats().upstream).not.toBe('open');
  });

  it('passes no garbage and no message that names no job', async () => {
    const relay = await start();
    const socket = await connect(relay);
    const signer = new TokenSigner([SECRET], 60_000);
    socket.subscribe(await signer.sign('job', 'p-quiet'));
    await socket.next((m) => m.type === 'graphcloud_subscribed');
    sim.faults.sendGarbageFrames();
    const name = await upload(relay.url, png(3, 3, 5));
    const answer = await submit(relay.url, scaleByWorkflow(name, 2, 'other'));
    socket.subscribe(answer.relay_token);
    await socket.next((m) => m.type === 'execution_success');
    // Garbage binary frames (unknown types, truncated) and text frames without a job were dropped.
    expect(socket.binaries.every((frame) => framePrompt(frame) === answer.prompt_id)).toBe(true);
    expect(socket.texts.every((m) => m.type === 'status' || m.type.startsWith('graphcloud_') || m.data.prompt_id === answer.prompt_id)).toBe(true);
    expect(relay.relay.stats().dropped).toBeGreaterThan(0);
  });

  it('passes the previews and node text of the followed job (type 4 by its metadata, type 3 by the last active job)', async () => {
    // A local runtime takes a client-chosen prompt id, so the test can subscribe before the run starts.
    const local = await startSimulator({ runtime: 'local', stepDelayMs: 1, progressSteps: 2, taskDurationMs: 30, apiKey: 'sk-local-key-for-partner-nodes' });
    try {
      const relay = await start({ apiKey: local.apiKey, partnerApiKey: true }, local);
      const socket = await connect(relay);
      const name = await upload(relay.url, png(4, 4, 6));
      const promptId = crypto.randomUUID();
      socket.subscribe(await new TokenSigner([SECRET], 60_000).sign('job', promptId));
      await socket.next((m) => m.type === 'graphcloud_subscribed');
      const partner = {
        '1': { class_type: 'LoadImage', inputs: { image: name } },
        '2': { class_type: 'UpscaleViaProxy', inputs: { image: ['1', 0], scale_factor: '2x' } },
        '3': { class_type: 'ImageScaleBy', inputs: { image: ['2', 0], upscale_method: 'bilinear', scale_by: 1.5 } },
        '4': { class_type: 'SaveImage', inputs: { images: ['3', 0], filename_prefix: 'partner' } },
      };
      const answer = await submit(relay.url, partner, { prompt_id: promptId });
      expect(answer.prompt_id).toBe(promptId);
      await socket.next((m) => m.type === 'execution_success');
      const kinds = socket.binaries.map((frame) => new DataView(frame.buffer, frame.byteOffset).getUint32(0));
      expect(kinds).toContain(4);
      expect(kinds).toContain(3);
      expect(socket.binaries.filter((frame) => framePrompt(frame) !== 'type 3').every((frame) => framePrompt(frame) === promptId)).toBe(true);
      // The partner key reached the upstream submission, and nothing of it reached the browser.
      for (const frame of socket.raw) expect(typeof frame === 'string' ? frame : new TextDecoder().decode(frame)).not.toContain(local.apiKey);
    } finally {
      await local.close();
    }
  });
});
