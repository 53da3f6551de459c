// The smoke's workflow (upload -> scale -> save) and its input image. Plain JavaScript for every
// runtime (see smoke.mjs).

// A 16x16 solid-colour PNG.
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAAFklEQVR4nGPQqDhBEmIY1TCqYfhqAADDSmgQBaIOewAAAABJRU5ErkJggg==';

/** The input image's bytes. */
export function smokePng() {
  const text = globalThis.atob(PNG_BASE64);
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

/**
 * A workflow no earlier run has submitted: an identical one is served from the server's cache,
 * with no progress messages for the smoke to check. The save prefix carries a random UUID, so
 * the save node always runs (and reports progress on the simulator) even when the scale node,
 * the same on every run, is cached.
 */
export function smokeWorkflow() {
  const run = globalThis.crypto.randomUUID();
  return {
    1: { class_type: 'LoadImage', inputs: { image: 'set-by-upload' } },
    2: { class_type: 'ImageScale', inputs: { image: ['1', 0], upscale_method: 'bilinear', width: 24, height: 0, crop: 'disabled' } },
    3: { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: `smoke-${run}` } },
  };
}
