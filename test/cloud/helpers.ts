import { vi } from 'vitest';
import { encodePng } from '../../src/testing/index.js';
import type { Workflow } from '../../src/index.js';

export const png = (width = 16, height = 16): Uint8Array => encodePng(width, height, [10, 20, 30]);

/** LoadImage -> ImageScale -> SaveImage. */
export function scaleWorkflow(image: string, width = 32, prefix = 'sim'): Workflow {
  return {
    '1': { class_type: 'LoadImage', inputs: { image } },
    '2': { class_type: 'ImageScale', inputs: { image: ['1', 0], upscale_method: 'bilinear', width, height: 0, crop: 'disabled' } },
    '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: prefix } },
  };
}

/** Resolves once `predicate` holds, checking on every macrotask turn (no wall-clock assertion). */
export async function until(predicate: () => boolean, turns = 10_000): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (predicate()) return;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  throw new Error('condition never became true');
}

/** Advances the fake clock in 5 ms steps, letting msw's real macrotasks run between steps. */
export async function step(ms: number): Promise<void> {
  for (let t = 0; t < ms; t += 5) {
    await vi.advanceTimersByTimeAsync(5);
    for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
  }
}

/** A WebSocket constructor that always fails: the watcher polls from the start. */
export class NoSocket {
  constructor() {
    throw new Error('no sockets here');
  }
}
