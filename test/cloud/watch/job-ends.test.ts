import { afterEach, describe, expect, it } from 'vitest';
import { CloudClient, JobFailedError, type JobResult, type WatchEvent, type Workflow } from '../../../src/index.js';
import { type CloudClientOptions } from '../../../src/cloud/client.js';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../../src/testing/index.js';
import { NoSocket, png, scaleWorkflow } from '../helpers.js';

// How a watch learns the end of a run (docs/wire-protocol.md#cloud-websocket-messages-and-their-order):
// only from the job's own end (its end message, or its record), never from a cancel's answer nor
// from `executing {node: null}`, which closes failed runs too. Against the simulator on 127.0.0.1,
// which, like a real runtime, stops a cancelled run only between nodes.
let sim: Simulator | undefined;
const clients: CloudClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  await sim?.close();
  sim = undefined;
});

const FAST: CloudClientOptions['watcher'] = {
  socket: { minDelayMs: 10, maxDelayMs: 40, idleCloseMs: 5, connectionTimeoutMs: 2_000 },
  // A silence read only after 5 s: a test that settles sooner settled on the socket or on a read it asked for.
  poll: { minDelayMs: 100, maxDelayMs: 200, silenceMs: 5_000 },
};

function client(s: Simulator, options: Partial<CloudClientOptions> = {}): CloudClient {
  const created = new CloudClient({ baseUrl: s.cloudUrl, apiKey: s.apiKey, watcher: FAST, ...options });
  clients.push(created);
  return created;
}

async function setup(options: SimulatorOptions = {}): Promise<Simulator> {
  sim = await startSimulator({ stepDelayMs: 0, progressSteps: 2, ...options });
  await client(sim).files.upload(png(), { filename: 'cat.png' });
  return sim;
}

const status = (s: Simulator, id: string) => s.state.jobs().find((job) => job.id === id)?.status;
const recordReads = (s: Simulator) => s.state.requests.filter((r) => /\/(jobs|history_v2|history)\/|\/status$/.test(r.path)).length;

/** LoadImage -> SaveImage: the last node runs for four steps after its `executing`, long enough for a cancel to land in it. */
const SHORT: Workflow = {
  '1': { class_type: 'LoadImage', inputs: { image: 'cat.png' } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'last' } },
};
const SAVED = { images: [{ filename: 'last_00001_.png', subfolder: '', type: 'output' }] };
// Each step of the last node takes this long: the cancel must reach the simulator within four of them.
const LAST_NODE = { stepDelayMs: 300, progressSteps: 4 };
const inLastNode = (event: WatchEvent): event is Extract<WatchEvent, { type: 'executing' }> => event.type === 'executing' && event.data.node === '2';

/** Runs `workflow`, cancelling its job once `when(event)`: what the run gave (its result, or what it threw), the job's id and the cancel's answer. */
async function runCancelling(cloud: CloudClient, workflow: Workflow, when: (event: WatchEvent) => boolean): Promise<{ outcome: unknown; promptId: string; answer: unknown }> {
  let promptId = '';
  let cancelling: Promise<unknown> | undefined;
  const outcome = await cloud
    .runWorkflow(workflow, { onSubmitted: (job) => (promptId = job.promptId), onEvent: (event) => void (when(event) && (cancelling ??= cloud.jobs.cancel(promptId))) })
    .catch((e: unknown) => e);
  return { outcome, promptId, answer: await cancelling };
}

describe.each([
  ['the cancel route (cloud)', { runtime: 'cloud', cancelRoutes: true }, 'cancel'],
  ['an interrupt of that job (local runtime)', { runtime: 'local', cancelRoutes: false }, 'interrupt'],
] as const)('cloud.jobs.cancel() during the last node, through %s', (_name, runtime, via) => {
  it('a watch attached before the job started ends completed with its outputs, saying a cancel was requested', async () => {
    const s = await setup({ ...runtime, ...LAST_NODE });
    const cloud = client(s);
    const { outcome: result, promptId, answer } = await runCancelling(cloud, SHORT, inLastNode);
    // The runtime took the cancel, and still finished the node it was running: the job completed.
    expect(answer).toEqual({ cancelled: true, via, reason: undefined });
    expect(result).toMatchObject({ status: 'completed', cancelRequested: true, outputs: { '2': SAVED } });
    expect(status(s, promptId)).toBe('completed');
  });

  it.each([
    ['on the socket', {}, false],
    ['by polling (no socket)', { WebSocket: NoSocket as never }, false],
    ['when it was attached after the cancel (as a worker may)', {}, true],
  ] as const)('a watch attached after the job started ends completed with its outputs %s', async (_how, options, afterCancel) => {
    const s = await setup({ ...runtime, ...LAST_NODE });
    const cloud = client(s, options);
    let late: Promise<[JobResult, unknown]> | undefined;
    const watchAndCancel = async (promptId: string): Promise<[JobResult, unknown]> => {
      if (!afterCancel) return Promise.all([cloud.jobs.watch(promptId).result(), cloud.jobs.cancel(promptId)]);
      const answer = await cloud.jobs.cancel(promptId);
      return [await cloud.jobs.watch(promptId).result(), answer];
    };
    // Another client runs the job; this one watches and cancels it once its last node runs.
    const own = await client(s).runWorkflow(SHORT, { onEvent: (event) => void (inLastNode(event) && (late ??= watchAndCancel(event.data.prompt_id))) });
    const [result, answer] = await (late as Promise<[JobResult, unknown]>);
    expect(answer).toEqual({ cancelled: true, via, reason: undefined });
    expect(result).toMatchObject({ status: 'completed', cancelRequested: true, outputs: { '2': SAVED } });
    // The client that did not cancel is not told of a cancel.
    expect(own).toMatchObject({ status: 'completed', outputs: { '2': SAVED } });
    expect(own.cancelRequested).toBeUndefined();
    expect(status(s, result.promptId)).toBe('completed');
  });
});

describe('cloud.jobs.cancel() of a job that ends first', () => {
  it('says a cancel was requested though the job ended before the cancel reached the server', async () => {
    const s = await setup({ stepDelayMs: 20 });
    // The cancel is held on its way until the job has completed.
    s.faults.failRequests({ method: 'POST', path: /\/cancel$/, delayMs: 1_000 });
    const cloud = client(s);
    const { outcome: result, answer } = await runCancelling(cloud, SHORT, inLastNode);
    expect(result).toMatchObject({ status: 'completed', cancelRequested: true, outputs: { '2': SAVED } });
    expect(answer).toEqual({ cancelled: false, via: undefined, reason: 'ended_or_unknown' });
  });
});

describe('cloud.jobs.cancel() of a job that stops', () => {
  it.each([
    ['the cancel route', { runtime: 'cloud', cancelRoutes: true }, 'cancel'],
    ['a queue delete (cloud)', { runtime: 'cloud', cancelRoutes: false }, 'queue'],
    ['a queue delete (local runtime)', { runtime: 'local', cancelRoutes: false }, 'queue'],
  ] as const)('a pending job removed through %s ends cancelled, from its record', async (_name, runtime, via) => {
    const s = await setup({ ...runtime, stepDelayMs: 100 });
    const cloud = client(s);
    const running = await cloud.jobs.submit(scaleWorkflow('cat.png', 20));
    const pending = await cloud.jobs.submit(scaleWorkflow('cat.png', 21));
    const watchers = [cloud.jobs.watch(running.promptId), cloud.jobs.watch(pending.promptId)];
    expect(await cloud.jobs.cancel(pending.promptId)).toEqual({ cancelled: true, via, reason: undefined });
    expect(await watchers[1]?.result()).toMatchObject({ status: 'cancelled', via: 'poll', cancelRequested: true });
    expect(await watchers[0]?.result()).toMatchObject({ status: 'completed' });
    expect(status(s, pending.promptId)).toBe('cancelled');
  });

  it('a running job interrupted between nodes ends cancelled with its own execution_interrupted', async () => {
    const s = await setup({ stepDelayMs: 150 });
    const cloud = client(s);
    const { outcome: error, promptId } = await runCancelling(cloud, scaleWorkflow('cat.png'), (event) => event.type === 'execution_start');
    expect(error).toBeInstanceOf(JobFailedError);
    expect((error as JobFailedError).result).toMatchObject({ status: 'cancelled', via: 'socket', cancelRequested: true, error: { message: 'Execution was interrupted' } });
    expect(status(s, promptId)).toBe('cancelled');
  });
});

describe('cloud.runWorkflow() of a run whose end message never arrives (the socket stays up)', () => {
  it('rejects a failed run as failed: `executing {node: null}` closes failed runs too, so the job is read', async () => {
    const s = await setup();
    s.faults.dropEndMessages({ times: 1 });
    const workflow: Workflow = {
      '1': { class_type: 'FailNode', inputs: { message: 'boom' } },
      '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'x' } },
    };
    const error = await client(s).runWorkflow(workflow).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JobFailedError);
    expect((error as JobFailedError).result).toMatchObject({ status: 'failed', via: 'poll' });
  });

  it('resolves a completed run with its outputs from the job record', async () => {
    const s = await setup();
    const rule = s.faults.dropEndMessages({ times: 1 });
    const result = await client(s).runWorkflow(scaleWorkflow('cat.png', 24, 'dropped'));
    expect(rule.hits).toBe(1);
    expect(result).toMatchObject({ status: 'completed', via: 'poll', outputsComplete: true, outputs: { '3': { images: [{ filename: 'dropped_00001_.png', subfolder: '', type: 'output' }] } } });
  });

  it('ends a run interrupted after its cancel as cancelled, read from its record', async () => {
    const s = await setup({ stepDelayMs: 150 });
    s.faults.dropEndMessages({ times: 1 });
    const cloud = client(s);
    const { outcome: error } = await runCancelling(cloud, scaleWorkflow('cat.png'), (event) => event.type === 'execution_start');
    expect((error as JobFailedError).result).toMatchObject({ status: 'cancelled', via: 'poll', cancelRequested: true });
  });

  it('keeps the fast path: a run seen to its execution_success reads no job record', async () => {
    const s = await setup();
    const before = recordReads(s);
    const result = await client(s).runWorkflow(scaleWorkflow('cat.png', 25, 'fast'));
    expect(result).toMatchObject({ status: 'completed', via: 'socket', outputsComplete: true });
    expect(recordReads(s)).toBe(before);
  });
});

describe('cloud.jobs.cancel() of a job running on a local runtime, read across its end', () => {
  it('ends completed from its record when a read finds it in neither the history nor the queue: it ended between the two reads', async () => {
    const id = '5f0c1c55-6d1e-4c53-9a1e-0e4f5f0b6a01';
    const entry = { prompt: [1, id, {}, {}, ['2']], outputs: { '2': SAVED }, status: { status_str: 'success', completed: true, messages: [] } };
    let running = true;
    let historyReads = 0;
    const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    // A local runtime: the interrupt lands in the job's last node, which it finishes. The watch's
    // first history read is answered as it was just before the end, the queue read just after.
    const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
      const request = new Request(input, init);
      const { pathname } = new URL(request.url);
      if (pathname.endsWith(`/jobs/${id}/cancel`)) return json({ error: 'not found' }, 404);
      if (pathname.endsWith('/interrupt')) return json({});
      if (pathname.endsWith('/queue')) {
        const queue = { queue_running: running ? [[1, id, {}, {}, ['2']]] : [], queue_pending: [] };
        running = false; // the queue read that found it running was the interrupt's; it ends now
        return json(queue);
      }
      if (pathname.endsWith(`/history/${id}`)) return json(++historyReads === 1 ? {} : { [id]: entry });
      return json({ error: `unexpected ${request.method} ${pathname}` }, 500);
    };
    const cloud = new CloudClient({ baseUrl: 'http://runtime.test', runtime: 'local', WebSocket: NoSocket as never, fetch, watcher: FAST });
    clients.push(cloud);
    expect(await cloud.jobs.cancel(id)).toEqual({ cancelled: true, via: 'interrupt', reason: undefined });
    const result = await cloud.jobs.watch(id).result();
    expect(result).toMatchObject({ status: 'completed', cancelRequested: true, outputs: { '2': SAVED } });
  });
});
