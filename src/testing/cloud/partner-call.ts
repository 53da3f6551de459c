import { encodePng } from '../files/png.js';
import { INTERNAL_HEADER } from '../server/area-server.js';
import { isObject } from '../server/request.js';
import { sleep } from '../server/sleep.js';
import { NodeFailure, type PartnerCall } from './node-behaviour.js';

/**
 * Dependencies of the partner node's call to the simulator's own proxy.
 *
 * @example
 * const partner = partnerCall({ proxyUrl: () => sim.proxyUrl, internalSecret, signal, pollMs: 20 });
 */
export interface PartnerCallDeps {
  proxyUrl: () => string;
  internalSecret: string;
  signal: AbortSignal;
  pollMs: number;
}

/** The message the runtime's partner nodes raise without a usable platform key. */
const UNAUTHORIZED = 'Unauthorized: Please login first to use this node.';
const MAX_POLLS = 10_000;

/**
 * Builds the partner node behaviour: submit an upscale to `/proxy/imagevendor/...` with the
 * workflow's `api_key_platform_org` as `X-API-Key`, then poll until the task ends, reporting
 * progress as type 3 text frames.
 *
 * @example
 * await partnerCall(deps)({ apiKey, scaleFactor: '2x', prompt: '', onText: async () => {} });
 */
export function partnerCall(deps: PartnerCallDeps): PartnerCall {
  return async ({ apiKey, scaleFactor, prompt, onText }) => {
    if (!apiKey) throw new NodeFailure(UNAUTHORIZED, 'Exception');
    const headers = { 'x-api-key': apiKey, [INTERNAL_HEADER]: deps.internalSecret, 'content-type': 'application/json' };
    const base = `${deps.proxyUrl()}/proxy/imagevendor/v1/ai/image-upscaler`;
    const image = `data:image/png;base64,${Buffer.from(encodePng(8, 8, [200, 100, 50])).toString('base64')}`;
    const submitted = await fetch(base, {
      method: 'POST',
      headers,
      body: JSON.stringify({ image, scale_factor: scaleFactor, ...(prompt ? { prompt } : {}) }),
      signal: deps.signal,
    });
    if (submitted.status === 401) throw new NodeFailure(UNAUTHORIZED, 'Exception');
    const first = (await submitted.json().catch(() => undefined)) as unknown;
    const taskId = isObject(first) && isObject(first.data) ? first.data.task_id : undefined;
    if (!submitted.ok || typeof taskId !== 'string') {
      throw new NodeFailure(`Image vendor request failed with HTTP ${submitted.status}: ${JSON.stringify(first)}`, 'Exception');
    }
    await onText(`Task ID: ${taskId}`);
    for (let poll = 0; poll < MAX_POLLS; poll += 1) {
      await sleep(deps.pollMs, deps.signal);
      const response = await fetch(`${base}/${taskId}`, { headers, signal: deps.signal });
      if (response.status === 404) continue;
      const body = (await response.json().catch(() => undefined)) as unknown;
      const data = isObject(body) && isObject(body.data) ? body.data : undefined;
      const status = String(data?.status ?? data?.task_status ?? '');
      await onText(`Status: ${status}`);
      if (status === 'COMPLETED') return;
      if (status === 'FAILED') throw new NodeFailure('Image vendor task failed', 'Exception');
    }
    throw new NodeFailure('Image vendor task did not finish', 'TimeoutError');
  };
}
