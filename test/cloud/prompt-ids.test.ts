import { bypass, http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CloudClient, SubmissionUnknownError } from '../../src/index.js';
import { startSimulator, type Simulator } from '../../src/testing/index.js';
import { png, scaleWorkflow } from './helpers.js';

// A submission whose answer is lost on the way back: on a local runtime the client chose the
// prompt id before sending, so it can look the job up instead of guessing
// (docs/wire-protocol.md#cloud-local-runtimes). msw lets the request reach the simulator, then
// drops the answer.
const server = setupServer();
beforeAll(() => server.listen({ onUnhandledFrame: 'bypass' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

let sim: Simulator | undefined;
let cloud: CloudClient | undefined;
afterEach(async () => {
  await cloud?.close();
  await sim?.close();
  cloud = undefined;
  sim = undefined;
});

const bodies: Record<string, unknown>[] = [];
function loseAnswers(s: Simulator): void {
  bodies.length = 0;
  const lose = async ({ request }: { request: Request }) => {
    bodies.push((await request.clone().json()) as Record<string, unknown>);
    await (await fetch(bypass(request))).text();
    return HttpResponse.error();
  };
  server.use(http.post(`${s.cloudUrl}/api/prompt`, lose));
}

async function setup(runtime: 'cloud' | 'local', clientRuntime: 'cloud' | 'local' | 'auto'): Promise<{ sim: Simulator; cloud: CloudClient }> {
  sim = await startSimulator({ runtime, stepDelayMs: 0, progressSteps: 1 });
  cloud = new CloudClient({ baseUrl: sim.cloudUrl, apiKey: sim.apiKey, runtime: clientRuntime });
  await cloud.files.upload(png(), { filename: 'cat.png' });
  return { sim, cloud };
}

describe('cloud.jobs.submit() with a lost answer', () => {
  it('on a local runtime, names the prompt id it chose, and cloud.jobs.get() finds the job', async () => {
    const { sim, cloud } = await setup('local', 'local');
    loseAnswers(sim);
    const error = (await cloud.jobs.submit(scaleWorkflow('cat.png')).catch((e: unknown) => e)) as SubmissionUnknownError;
    expect(error).toBeInstanceOf(SubmissionUnknownError);
    expect(error.promptId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(error.submitted).toEqual({ kind: 'job', promptId: error.promptId });
    expect(error.message).toContain(`cloud.jobs.get('${error.promptId}')`);
    expect(bodies[0]?.prompt_id).toBe(error.promptId);
    await sim.state.waitForIdle();
    expect(await cloud.jobs.get(error.promptId!)).toMatchObject({ promptId: error.promptId, status: 'completed' });
    expect(sim.state.jobs()).toHaveLength(1);
  });

  it('sends no prompt id to a client set to the cloud, and says to check the jobs', async () => {
    const { sim, cloud } = await setup('cloud', 'cloud');
    loseAnswers(sim);
    const error = (await cloud.jobs.submit(scaleWorkflow('cat.png')).catch((e: unknown) => e)) as SubmissionUnknownError;
    expect(error.promptId).toBeUndefined();
    expect(error.submitted).toBeUndefined();
    expect(bodies[0]).not.toHaveProperty('prompt_id');
    expect(error.message).toContain('cloud.jobs.listAll()');
  });

  it('with runtime auto, learns from the first answer whether the server keeps the id', async () => {
    const { sim, cloud } = await setup('cloud', 'auto');
    const first = await cloud.jobs.submit(scaleWorkflow('cat.png'));
    expect(first.promptId).toMatch(/^[0-9a-f-]{36}$/);
    loseAnswers(sim);
    const error = (await cloud.jobs.submit(scaleWorkflow('cat.png', 40)).catch((e: unknown) => e)) as SubmissionUnknownError;
    // The cloud assigned its own id to the first submission: this server ignores the field.
    expect(bodies[0]).not.toHaveProperty('prompt_id');
    expect(error.promptId).toBeUndefined();
  });

  it('with runtime auto on a local runtime, names the id it asked for once the server has kept one', async () => {
    const { sim, cloud } = await setup('local', 'auto');
    const first = await cloud.jobs.submit(scaleWorkflow('cat.png'));
    loseAnswers(sim);
    const error = (await cloud.jobs.submit(scaleWorkflow('cat.png', 40)).catch((e: unknown) => e)) as SubmissionUnknownError;
    expect(error.promptId).toBe(bodies[0]?.prompt_id);
    expect(error.submitted).toEqual({ kind: 'job', promptId: error.promptId });
    expect(error.promptId).not.toBe(first.promptId);
  });
});
