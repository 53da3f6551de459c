// Shared helpers of the end-to-end tests. They import only the BUILT package ('graphcloud' and
// 'graphcloud/testing', which resolve to dist/ through the package's own exports).
import { CloudClient, type Workflow } from 'graphcloud';
import { encodePng, startSimulator, type Simulator, type SimulatorOptions } from 'graphcloud/testing';

/** A solid-colour RGB PNG (the simulator reads its header for the size). */
export function png(width = 16, height = 16, rgb: [number, number, number] = [200, 80, 40]): Uint8Array {
  return encodePng(width, height, rgb);
}

/** True when the bytes start with the PNG signature. */
export const isPng = (bytes: Uint8Array | undefined): boolean => !!bytes && bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47;

/** LoadImage -> ImageScale -> SaveImage (node 3 saves). */
export function scaleWorkflow(image: string, width = 32, prefix = 'e2e'): Workflow {
  return {
    '1': { class_type: 'LoadImage', inputs: { image } },
    '2': { class_type: 'ImageScale', inputs: { image: ['1', 0], upscale_method: 'bilinear', width, height: 0, crop: 'disabled' } },
    '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: prefix } },
  };
}

/** Watcher policies scaled down so reconnects and polls happen in milliseconds. */
export const FAST_WATCHER: NonNullable<CloudClient.Options['watcher']> = {
  waitTimeout: 20_000,
  socket: { minDelayMs: 10, maxDelayMs: 80, idleCloseMs: 5, connectionTimeoutMs: 2_000 },
  poll: { minDelayMs: 100, maxDelayMs: 200, silenceMs: 2_000 },
};

/** Fast retries for idempotent requests (the core's policy, scaled down). */
export const FAST_RETRY = { limit: 4, budgetMs: 10_000, minDelayMs: 10, maxDelayMs: 100 };

/**
 * Bounds an await: rejects with an error naming `what` when `promise` has not settled within
 * `ms`, so a hang fails the test with a reason instead of stalling the run.
 */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Settles to the rejection reason (or fails when the promise resolves), bounded by `ms`. */
export async function rejectionOf(promise: Promise<unknown>, ms: number, what: string): Promise<unknown> {
  const outcome = await within(
    promise.then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    ),
    ms,
    what,
  );
  if (outcome.ok) throw new Error(`${what} resolved (${JSON.stringify(outcome.value)?.slice(0, 200)}) but was expected to reject`);
  return outcome.error;
}

/** Resolves once `predicate` holds, checking every few milliseconds, for at most `ms`. */
export async function until(predicate: () => boolean, ms: number, what: string): Promise<void> {
  await within(
    (async () => {
      while (!predicate()) await new Promise((resolve) => setTimeout(resolve, 2));
    })(),
    ms,
    what,
  );
}

/** A simulator and a cloud client on it, closed by `close()` (call it in afterEach). */
export interface Harness {
  sim: Simulator;
  cloud: CloudClient;
  close(): Promise<void>;
}

/** Starts a fast simulator and a cloud client with fast watcher policies. */
export async function harness(options: SimulatorOptions = {}, client: Partial<CloudClient.Options> = {}): Promise<Harness> {
  const sim = await within(startSimulator({ stepDelayMs: 0, progressSteps: 2, taskDurationMs: 40, ...options }), 5_000, 'startSimulator()');
  const cloud = new CloudClient({ baseUrl: sim.cloudUrl, apiKey: sim.apiKey, watcher: FAST_WATCHER, retry: FAST_RETRY, ...client });
  return {
    sim,
    cloud,
    close: async () => {
      await within(cloud.close(), 5_000, 'cloud.close()');
      await within(sim.close(), 5_000, 'sim.close()');
    },
  };
}
