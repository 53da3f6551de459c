// A run with one partner node of the simulator (`SimPricedFixed`: its badge says $0.04 and its
// texts charge 8.44 credits at 211 a dollar; src/testing/cloud/priced-nodes.ts), its image saved.

/** The id of the priced node in `pricedRun()`'s workflow. */
export const PRICED_NODE = '1';

/**
 * A run of a priced node (`SimPricedFixed` by default), then `scales` image scalings (a longer
 * run), its image saved; `n` makes runs distinct (no cache).
 */
export function pricedRun(n: number, classType = 'SimPricedFixed', scales = 0): { workflow: Record<string, { class_type: string; inputs: Record<string, unknown> }> } {
  const workflow: Record<string, { class_type: string; inputs: Record<string, unknown> }> = { [PRICED_NODE]: { class_type: classType, inputs: { prompt: `a fox, take ${n}` } } };
  let last = PRICED_NODE;
  for (let i = 0; i < scales; i += 1) {
    const id = String(10 + i);
    workflow[id] = { class_type: 'ImageScale', inputs: { image: [last, 0], upscale_method: 'bilinear', width: 16 + i, height: 0, crop: 'disabled' } };
    last = id;
  }
  workflow['2'] = { class_type: 'SaveImage', inputs: { images: [last, 0], filename_prefix: `priced${n}` } };
  return { workflow };
}
