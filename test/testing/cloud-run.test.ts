import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/testing/index.js';
import { isType, json, openSocket, png, runEnd, scaleWorkflow, submit, upload } from './helpers.js';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function started(options: Parameters<typeof startSimulator>[0] = {}): Promise<Simulator> {
  sim = await startSimulator({ stepDelayMs: 0, taskDurationMs: 30, ...options });
  return sim;
}

function collapse(types: string[]): string[] {
  return types.filter((type, index) => type !== types[index - 1]);
}

describe('cloud run over /ws', () => {
  it('streams a normal run in the wire order', async () => {
    const s = await started();
    await upload(s, 'cat.png', png());
    const socket = await openSocket(s);
    const res = await submit(s, { prompt: scaleWorkflow('cat.png'), client_id: 'ignored-by-cloud' });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({ number: 0, node_errors: {} });
    const id = String(body.prompt_id);
    await runEnd(socket, id);
    expect(collapse(socket.types(id))).toEqual([
      'execution_start', 'execution_cached',
      'progress_state', 'executing', 'progress', 'progress_state', 'executing', 'progress', 'progress_state', 'executing', 'progress',
      'executed', 'execution_success', 'executing',
    ]);
    const types = socket.types();
    expect(types.slice(types.lastIndexOf('execution_success') + 1)).toEqual(['status', 'executing']);
    const executed = socket.received.find(isType('executed', id));
    expect(executed).toMatchObject({ data: { node: '3', display_node: '3', output: { images: [{ filename: 'sim_00001_.png', subfolder: '', type: 'output' }] } } });
    const progress = socket.received.filter(isType('progress', id));
    expect(progress[0]).toMatchObject({ data: { value: 1, max: 3, node: '1', prompt_id: id } });
    expect(socket.received.some((m) => m.kind === 'binary')).toBe(true);
    const status = await fetch(`${s.cloudUrl}/api/job/${id}/status`, { headers: { 'X-API-Key': s.apiKey } });
    expect(await status.json()).toEqual({ status: 'completed' });
    socket.close();
  });

  it('answers a fully cached re-run with start, cached, executed and success only', async () => {
    const s = await started();
    await upload(s, 'cat.png', png());
    const socket = await openSocket(s);
    const first = String((await json(await submit(s, { prompt: scaleWorkflow('cat.png') }))).prompt_id);
    await runEnd(socket, first);
    const second = String((await json(await submit(s, { prompt: scaleWorkflow('cat.png') }))).prompt_id);
    await runEnd(socket, second);
    expect(socket.types(second)).toEqual(['execution_start', 'execution_cached', 'executed', 'execution_success', 'executing']);
    expect(socket.received.find(isType('execution_cached', second))).toMatchObject({ data: { nodes: ['1', '2', '3'] } });
    socket.close();
  });

  it('ends a failing run with a complete execution_error and status failed', async () => {
    const s = await started();
    const socket = await openSocket(s);
    const prompt = {
      '1': { class_type: 'FailNode', inputs: { message: 'boom' } },
      '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'x' } },
    };
    const id = String((await json(await submit(s, { prompt }))).prompt_id);
    await runEnd(socket, id);
    const error = socket.received.find(isType('execution_error', id));
    expect(error?.kind === 'json' && Object.keys(error.data).sort()).toEqual(
      ['current_inputs', 'current_outputs', 'exception_message', 'exception_type', 'executed', 'node_id', 'node_type', 'prompt_id', 'timestamp', 'traceback'].sort(),
    );
    expect(error).toMatchObject({ data: { node_id: '1', node_type: 'FailNode', exception_message: 'boom', exception_type: 'RuntimeError' } });
    expect(socket.types(id)).not.toContain('execution_success');
    const status = await fetch(`${s.cloudUrl}/api/job/${id}/status`, { headers: { 'X-API-Key': s.apiKey } });
    expect(await status.json()).toEqual({ status: 'failed' });
    socket.close();
  });

  it('sends a non-terminal ExecutionBlocked error without timestamp and still succeeds', async () => {
    const s = await started();
    await upload(s, 'cat.png', png());
    const socket = await openSocket(s);
    const prompt = {
      '1': { class_type: 'LoadImage', inputs: { image: 'cat.png' } },
      '2': { class_type: 'BlockExecution', inputs: { image: ['1', 0], message: 'nsfw' } },
      '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'blocked' } },
      '4': { class_type: 'PreviewImage', inputs: { images: ['1', 0] } },
    };
    const id = String((await json(await submit(s, { prompt }))).prompt_id);
    await runEnd(socket, id);
    const blocked = socket.received.find(isType('execution_error', id));
    expect(blocked).toMatchObject({ data: { exception_type: 'ExecutionBlocked', node_id: '3', exception_message: 'Execution Blocked: nsfw' } });
    expect(blocked?.kind === 'json' && 'timestamp' in blocked.data).toBe(false);
    const types = socket.types(id);
    expect(types.indexOf('execution_error')).toBeLessThan(types.indexOf('execution_success'));
    expect(socket.received.filter(isType('executed', id))).toHaveLength(1);
    socket.close();
  });

  it('fails a partner node run without extra_data.api_key_platform_org and runs it with the key', async () => {
    const s = await started();
    await upload(s, 'cat.png', png(8, 4));
    const socket = await openSocket(s);
    const prompt = {
      '1': { class_type: 'LoadImage', inputs: { image: 'cat.png' } },
      '2': { class_type: 'UpscaleViaProxy', inputs: { image: ['1', 0], scale_factor: '4x' } },
      '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'up' } },
    };
    const failed = String((await json(await submit(s, { prompt }))).prompt_id);
    await runEnd(socket, failed);
    expect(socket.received.find(isType('execution_error', failed))).toMatchObject({
      data: { node_type: 'UpscaleViaProxy', exception_message: expect.stringContaining('Unauthorized') },
    });
    const wrong = String((await json(await submit(s, { prompt, extra_data: { api_key_platform_org: 'nope' } }))).prompt_id);
    await runEnd(socket, wrong);
    expect(socket.types(wrong)).toContain('execution_error');
    const ok = String((await json(await submit(s, { prompt, extra_data: { api_key_platform_org: s.apiKey } }))).prompt_id);
    await runEnd(socket, ok);
    expect(socket.types(ok)).toContain('execution_success');
    const texts = socket.received.filter((m) => m.kind === 'binary' && new DataView(m.bytes.buffer).getUint32(0) === 3);
    expect(texts.length).toBeGreaterThan(0);
    expect(s.state.requests.some((r) => r.internal && r.path.endsWith('/image-upscaler'))).toBe(true);
    const history = await fetch(`${s.cloudUrl}/api/jobs/${ok}`, { headers: { 'X-API-Key': s.apiKey } });
    expect(JSON.stringify(await history.json())).not.toContain(s.apiKey);
    const view = await fetch(`${s.cloudUrl}/api/view?filename=up_00001_.png&type=output`, { headers: { 'X-API-Key': s.apiKey } });
    expect(view.status).toBe(200);
    socket.close();
  });
});

describe('binary preview frames', () => {
  it('sends type 1 frames by default and type 4 frames to sockets that announced preview metadata', async () => {
    const s = await started({ progressSteps: 1 });
    await upload(s, 'cat.png', png());
    const plain = await openSocket(s);
    const rich = await openSocket(s, { previewMetadata: true });
    const id = String((await json(await submit(s, { prompt: scaleWorkflow('cat.png', 48) }))).prompt_id);
    await Promise.all([runEnd(plain, id), runEnd(rich, id)]);
    const first = (socket: typeof plain): Uint8Array => {
      const frame = socket.received.find((m) => m.kind === 'binary');
      if (frame?.kind !== 'binary') throw new Error('no binary frame');
      return frame.bytes;
    };
    const one = new DataView(first(plain).buffer);
    expect(one.getUint32(0)).toBe(1);
    expect(one.getUint32(4)).toBe(2);
    expect([...first(plain).slice(8, 12)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    const four = first(rich);
    const view = new DataView(four.buffer);
    expect(view.getUint32(0)).toBe(4);
    const length = view.getUint32(4);
    const metadata = JSON.parse(new TextDecoder().decode(four.slice(8, 8 + length))) as Record<string, unknown>;
    expect(metadata).toMatchObject({ prompt_id: id, node_id: '2', display_node_id: '2', image_type: 'image/png' });
    expect([...four.slice(8 + length, 12 + length)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    plain.close();
    rich.close();
  });
});

describe('local runtime mode', () => {
  it('routes a run to the socket of its client_id and serves /history and /view without a prefix or key', async () => {
    const s = await started({ runtime: 'local' });
    await upload(s, 'cat.png', png());
    const mine = await openSocket(s, { clientId: 'mine' });
    const other = await openSocket(s, { clientId: 'other' });
    const res = await fetch(`${s.cloudUrl}/prompt`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: scaleWorkflow('cat.png'), client_id: 'mine' }),
    });
    const id = String((await json(res)).prompt_id);
    await runEnd(mine, id);
    expect(mine.types(id)).toContain('execution_success');
    expect(other.types(id)).toEqual([]);
    const history = await json(await fetch(`${s.cloudUrl}/history/${id}`));
    expect(history[id]).toMatchObject({ outputs: { '3': { images: [{ filename: 'sim_00001_.png' }] } }, status: { status_str: 'success', completed: true } });
    expect(await json(await fetch(`${s.cloudUrl}/api/history/unknown`))).toEqual({});
    expect((await fetch(`${s.cloudUrl}/api/job/${id}/status`)).status).toBe(404);
    expect(await json(await fetch(`${s.cloudUrl}/api/jobs/${id}`))).toMatchObject({ id, status: 'completed' });
    const view = await fetch(`${s.cloudUrl}/view?filename=sim_00001_.png&type=output`, { redirect: 'manual' });
    expect(view.status).toBe(200);
    expect(view.headers.get('content-type')).toBe('image/png');
    mine.close();
    other.close();
  });
});

describe('job status', () => {
  it('answers 404 for an unknown job, 403 for another user, and raw states under the fault', async () => {
    const s = await started();
    await upload(s, 'cat.png', png());
    const id = String((await json(await submit(s, { prompt: scaleWorkflow('cat.png') }))).prompt_id);
    await s.state.waitForIdle();
    const get = (key: string, path = id): Promise<Response> => fetch(`${s.cloudUrl}/api/job/${path}/status`, { headers: { 'X-API-Key': key } });
    expect((await get(s.apiKey, 'missing')).status).toBe(404);
    expect((await get(s.otherApiKey)).status).toBe(403);
    s.faults.set({ rawStatusVocabulary: true });
    expect(await json(await get(s.apiKey))).toMatchObject({ id, status: 'success', error_message: null, created_at: expect.any(String), updated_at: expect.any(String) });
  });

  it('interrupts a running job with execution_interrupted', async () => {
    const s = await started({ stepDelayMs: 20 });
    await upload(s, 'cat.png', png());
    const socket = await openSocket(s);
    const id = String((await json(await submit(s, { prompt: scaleWorkflow('cat.png') }))).prompt_id);
    await socket.waitFor(isType('executing', id));
    await fetch(`${s.cloudUrl}/api/interrupt`, { method: 'POST', headers: { 'X-API-Key': s.apiKey } });
    await runEnd(socket, id);
    expect(socket.types(id)).toContain('execution_interrupted');
    expect(s.state.jobs()[0]?.status).toBe('cancelled');
    socket.close();
  });
});
