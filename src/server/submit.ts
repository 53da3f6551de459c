import { callSafely, isPlainObject, scrubSecrets } from '../core/index.js';
import { answerHeaders, refuse } from './answers.js';
import { scrubDecodable } from './scrub-body.js';
import { readAnswer, readJsonObject } from './body.js';
import type { RelayCall, RelayContext } from './context.js';
import { upstreamPath } from './forward.js';
import type { SubmitBody } from './options.js';

// A submission answer is small ({prompt_id, number, node_errors}); a larger one passes unread.
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/**
 * `POST /api/prompt`: reads the submission (bounded, JSON only), lets `onSubmit` check, rewrite
 * or refuse it, writes the relay's upstream `clientId` into `client_id` (a local runtime sends a
 * job's events to that socket only; the cloud ignores the field, see
 * docs/wire-protocol.md#cloud-submitting-a-workflow), adds the partner key when asked, sends it
 * once, and adds `relay_token` (the job's signed token) to the answer.
 *
 * @example
 * ```ts
 * return submitJob(ctx, call);
 * ```
 */
export async function submitJob(ctx: RelayContext, call: RelayCall): Promise<Response> {
  const body = await readJsonObject(call.request, ctx.config.bodyLimits);
  if (body instanceof Response) return body;
  if (!isPlainObject(body.prompt)) return refuse(400, 'bad_request', 'A submission is a JSON object { prompt: { <node id>: { class_type, inputs } }, extra_data? }');
  let submission = body as SubmitBody;
  const hook = ctx.config.onSubmit;
  if (hook) {
    const verdict = await runHook(ctx, () => hook(submission, call.request));
    if (verdict instanceof Response) return verdict;
    if (verdict !== undefined) {
      if (!isPlainObject(verdict) || !isPlainObject(verdict.prompt)) return refuse(500, 'hook_failed', 'The relay’s onSubmit hook returned something other than a submission { prompt }, a Response or nothing; nothing was sent');
      submission = verdict as SubmitBody;
    }
  }
  const sent: Record<string, unknown> = { ...submission, client_id: ctx.config.clientId };
  if (ctx.config.partnerApiKey) {
    // Partner nodes read the platform key from extra_data (docs/wire-protocol.md#authentication).
    const extra = isPlainObject(sent.extra_data) ? sent.extra_data : {};
    sent.extra_data = { ...extra, api_key_platform_org: await ctx.upstream.apiKey() };
  }
  // No browser signal: once sent, a paid submission's answer must be read to name its job.
  const response = await ctx.upstream.send({ method: 'POST', upstream: 'cloud', path: '/api/prompt', headers: { 'content-type': 'application/json' }, body: JSON.stringify(sent) });
  return withToken(ctx, response, 'job', (answer) => (typeof answer.prompt_id === 'string' && answer.prompt_id !== '' ? answer.prompt_id : undefined));
}

/**
 * A media task submission (`POST /proxy/...`): bounded JSON, `onTaskSubmit`, sent once; the answer
 * gets `relay_token`, the task's signed token (its status routes ask for it).
 *
 * @example
 * ```ts
 * return submitTask(ctx, call);
 * ```
 */
export async function submitTask(ctx: RelayContext, call: RelayCall): Promise<Response> {
  const body = await readJsonObject(call.request, ctx.config.bodyLimits);
  if (body instanceof Response) return body;
  let submission = body;
  const path = upstreamPath(call);
  const hook = ctx.config.onTaskSubmit;
  if (hook) {
    const verdict = await runHook(ctx, () => hook(submission, { path, request: call.request }));
    if (verdict instanceof Response) return verdict;
    if (verdict !== undefined) {
      if (!isPlainObject(verdict)) return refuse(500, 'hook_failed', 'The relay’s onTaskSubmit hook returned something other than a body object, a Response or nothing; nothing was sent');
      submission = verdict;
    }
  }
  const response = await ctx.upstream.send({ method: 'POST', upstream: 'proxy', path, headers: { 'content-type': 'application/json' }, body: JSON.stringify(submission) });
  // Image answers wrap the task in `data`, style transfer and video answers do not
  // (docs/wire-protocol.md#media-proxy-submissions-and-envelopes).
  return withToken(ctx, response, 'task', (answer) => {
    const inner = isPlainObject(answer.data) ? answer.data : answer;
    return typeof inner.task_id === 'string' && inner.task_id !== '' ? inner.task_id : typeof answer.task_id === 'string' && answer.task_id !== '' ? answer.task_id : undefined;
  });
}

async function runHook<T>(ctx: RelayContext, hook: () => T | Promise<T>): Promise<T | Response> {
  try {
    return await hook();
  } catch (error) {
    callSafely(ctx.config.onError, error instanceof Error ? error : new Error(String(error)));
    return refuse(500, 'hook_failed', 'The relay’s submission hook failed; nothing was sent');
  }
}

/** The answer with `relay_token` added when it names the work, scrubbed of every credential. */
async function withToken(ctx: RelayContext, response: Response, kind: 'job' | 'task', idOf: (answer: Record<string, unknown>) => string | undefined): Promise<Response> {
  const secrets = ctx.upstream.secrets;
  const headers = answerHeaders(response.headers, secrets, { keepLength: false });
  const text = await readAnswer(response, MAX_ANSWER_BYTES);
  if (text === undefined) return refuse(502, 'upstream_refused', `The upstream answered the submission with an unexpectedly large body (status ${response.status}): check the job list before sending it again`);
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    return new Response(scrubDecodable(text, secrets), { status: response.status, headers });
  }
  if (response.ok && isPlainObject(answer)) {
    const id = idOf(answer);
    if (id !== undefined) answer.relay_token = await ctx.signer.sign(kind, id);
  }
  headers.set('content-type', 'application/json; charset=utf-8');
  headers.set('cache-control', 'no-store');
  return new Response(JSON.stringify(scrubSecrets(answer, secrets)), { status: response.status, headers });
}
