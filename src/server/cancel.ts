import { isPlainObject } from '../core/index.js';
import { jsonAnswer } from './answers.js';
import { readAnswer } from './body.js';
import type { RelayCall, RelayContext } from './context.js';
import { relayAnswer, upstreamPath } from './forward.js';

// The queue lists every job of the account; beyond this, the relay does not read it.
const MAX_QUEUE_BYTES = 16 * 1024 * 1024;

/**
 * `POST /api/jobs/{id}/cancel` for the token's job. A server without that route (`404`, `405`)
 * cancels in two calls whose routes are account-wide, which the browser may not use: the relay
 * removes the job from the queue itself when it is pending, and answers `{cancelled: false,
 * reason: 'running_not_cancellable'}` when it runs, since the cloud's interrupt stops every
 * running job of the account (docs/wire-protocol.md#cloud-job-control-listing-and-queue).
 *
 * @example
 * ```ts
 * return cancelJob(ctx, call, promptId);
 * ```
 */
export async function cancelJob(ctx: RelayContext, call: RelayCall, promptId: string): Promise<Response> {
  await call.request.body?.cancel().catch(() => undefined);
  // No browser signal: a cancel once sent is seen through.
  const response = await ctx.upstream.send({ method: 'POST', upstream: 'cloud', path: upstreamPath(call) });
  if (response.status !== 404 && response.status !== 405) return relayAnswer(ctx, response, 'cloud');
  await response.body?.cancel().catch(() => undefined);
  const queue = await ctx.upstream.send({ method: 'GET', upstream: 'cloud', path: '/api/queue' });
  if (!queue.ok) return relayAnswer(ctx, queue, 'cloud');
  let body: unknown;
  try {
    body = JSON.parse((await readAnswer(queue, MAX_QUEUE_BYTES)) ?? '');
  } catch {
    body = undefined;
  }
  // A queue item is [number, prompt_id, prompt, ...].
  const listed = (name: string) => isPlainObject(body) && Array.isArray(body[name]) && body[name].some((item: unknown) => Array.isArray(item) && item[1] === promptId);
  if (!listed('queue_pending')) return jsonAnswer(200, { cancelled: false, reason: listed('queue_running') ? 'running_not_cancellable' : 'ended_or_unknown' });
  const removed = await ctx.upstream.send({ method: 'POST', upstream: 'cloud', path: '/api/queue', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ delete: [promptId] }) });
  if (!removed.ok) return relayAnswer(ctx, removed, 'cloud');
  await removed.body?.cancel().catch(() => undefined);
  return jsonAnswer(200, { cancelled: true });
}
