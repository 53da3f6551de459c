/**
 * Which of the simulator's servers a request reached.
 *
 * @example
 * const area: SimulatorArea = 'cloud';
 */
export type SimulatorArea = 'cloud' | 'registry' | 'files';

/**
 * Options of {@link startSimulator}.
 *
 * @example
 * const sim = await startSimulator({ runtime: 'local', stepDelayMs: 0, taskDurationMs: 50 });
 */
export interface SimulatorOptions {
  /** Port of the cloud server; 0 picks a free one. @default 0 */
  port?: number;
  /** Port of the registry and proxy server. @default 0 */
  registryPort?: number;
  /** Port of the second origin serving signed files and proxy results. @default 0 */
  filesPort?: number;
  /** `cloud` behaves like the hosted API; `local` like a local runtime (clientId routing, /history, no auth). @default 'cloud' */
  runtime?: 'cloud' | 'local';
  /**
   * Serve `POST /api/jobs/{id}/cancel` as the newest servers do; `false` answers it 404, like
   * older servers, where cancelling takes `POST /api/queue {delete}` and `POST /api/interrupt`.
   * @default true
   */
  cancelRoutes?: boolean;
  /**
   * Serve `GET /api/jobs` and `GET /api/jobs/{id}` (and the cancel route); `false` answers them
   * 404, like a local runtime of ComfyUI 0.3.77, where jobs are listed from `GET /history`.
   * @default true
   */
  jobsRoutes?: boolean;
  /** Answer CORS preflights and add `Access-Control-Allow-Origin: *` so a browser can call the simulator. @default false */
  cors?: boolean;
  /** Time a proxy task takes from creation to its terminal state. @default 1000 */
  taskDurationMs?: number;
  /** Pause between two execution events of a workflow run. @default 5 */
  stepDelayMs?: number;
  /** Number of `progress` messages (and preview frames) per executed node. @default 3 */
  progressSteps?: number;
  /**
   * Jobs of the account run at once, as the cloud's plan tiers allow (1, 3 or 5); the others wait
   * `pending` until one ends. `sim.state.peaks()` tells the most seen at once. @default 1
   */
  accountConcurrency?: number;
  /** Cloud API key of the demo user (also the platform key of the proxy). Generated when omitted. */
  apiKey?: string;
  /** Cloud API key of a second user, for 403 on another user's job. Generated when omitted. */
  otherApiKey?: string;
  /** Registry/proxy Bearer token of the demo user, owner of `demo-publisher`. Generated when omitted. */
  token?: string;
  /** Bearer token of a user who is only `member` of `demo-publisher`. Generated when omitted. */
  memberToken?: string;
  /** Seed of the random generator behind fault ratios and seeded ids. @default 1 */
  seed?: number;
  /** Clock used for proxy task progress and signed URL expiry. @default Date.now */
  now?: () => number;
  /** Lifetime of signed file URLs answered by the cloud `/api/view`. @default 300000 */
  signedUrlTtlMs?: number;
  /** Receives one line per request and notable event. */
  logger?: (line: string) => void;
}

/**
 * One request the simulator received, in arrival order.
 *
 * @example
 * sim.state.requests.filter((r) => r.area === 'files' && r.headers['x-api-key']);
 */
export interface RequestRecord {
  /** The server that received it. */
  area: SimulatorArea;
  /** The HTTP method (`GET`, `POST`...). */
  method: string;
  /** The URL path, without the query. */
  path: string;
  /** The query string with its `?`, or `''` when there is none. */
  query: string;
  /** The request headers, names lower-cased (repeated headers joined with `, `): credentials included, as they arrived. */
  headers: Record<string, string>;
  /** Status answered; undefined while the request is in flight. */
  status?: number;
  /** True for calls the simulator made to itself (partner nodes calling the proxy). */
  internal: boolean;
}

/**
 * Simulator-wide fault switches; `sim.faults.set()` merges a part of them.
 *
 * @example
 * sim.faults.set({ rawStatusVocabulary: true, taskNotFoundPolls: 2 });
 */
export interface FaultSettings {
  /** Job status answers raw internal states (`submitted`, `executing`, `success`, `error`...) with id and timestamps. */
  rawStatusVocabulary: boolean;
  /** Run the whole workflow (every WebSocket message) before writing the `/api/prompt` response. */
  finishBeforeResponse: boolean;
  /** Drop the user's sockets after the first executed node, refuse reconnects until the run ends: its completion is lost. */
  dropSocketsMidRun: boolean;
  /** Interleave garbage frames (unknown binary types, truncated frames, malformed JSON, unknown types) into runs. */
  garbageFrames: boolean;
  /** Cached output nodes send no `executed` (as some server versions do): their outputs are only in the job record. */
  cachedWithoutExecuted: boolean;
  /**
   * A run's end messages never reach the socket: its `executed`, `execution_success`,
   * `execution_error` and `execution_interrupted` (the job record keeps its status and outputs);
   * the final `executing {node: null}` is still sent, and the socket stays up.
   */
  dropEndMessages: boolean;
  /** Delay every response by this many milliseconds. */
  delayMs: number;
  /** Field name of an image task's status (`task_status` mimics some upstreams). */
  taskStatusField: 'status' | 'task_status';
  /** Wrap style-transfer answers in `data` like the other image endpoints. */
  wrapStyleTransfer: boolean;
  /** The first N polls of every new proxy task answer 404 (eventual consistency). */
  taskNotFoundPolls: number;
}

/**
 * A rule answering matching requests with an error status.
 *
 * @example
 * sim.faults.failRequests({ path: '/api/prompt', status: 503, times: 2 });
 * sim.faults.failRequests({ path: /^\/proxy\//, status: 429, retryAfter: 1, rate: 0.5 });
 * sim.faults.failRequests({ path: '/versions', delayMs: 300 }); // slow, not failed
 */
export interface FailureRule {
  /** Path prefix (string) or pattern (RegExp) tested on the pathname; all paths when omitted. */
  path?: string | RegExp;
  /** HTTP method to match; all when omitted. */
  method?: string;
  /** Server to match; all when omitted. */
  area?: SimulatorArea;
  /** Status to answer, e.g. 500, 502, 503, 429; omit it for a delay-only rule. */
  status?: number;
  /** Delay the matching responses by this many milliseconds (before any status is answered). */
  delayMs?: number;
  /** Fail only the next N matching requests. */
  times?: number;
  /** Fail this share (0 to 1) of matching requests, drawn from the seeded generator. */
  rate?: number;
  /** `Retry-After` seconds; sent by default (1) with 429 and 503. */
  retryAfter?: number;
  /** Body to answer: an object is JSON, a string is text, `null` is empty. Default `{message}`. */
  body?: unknown;
  /**
   * Send the answer's status and headers at once, then hold its body this many milliseconds (the
   * connection stays open; a client that gives up first never gets it). Alone, the route answers;
   * with `status`, the failure does.
   */
  stallBodyMs?: number;
}

/**
 * Handle of an installed {@link FailureRule}.
 *
 * @example
 * const rule = sim.faults.failRequests({ status: 500, times: 1 });
 * rule.hits; // how many requests it failed
 * rule.remove();
 */
export interface FailureRuleHandle {
  /** How many requests the rule has failed (or delayed) so far. */
  readonly hits: number;
  /** Uninstalls the rule; requests after it are answered normally. */
  remove(): void;
}

/**
 * The fault-injection API at `sim.faults`. Per request, the header `x-sim-fault` does the same
 * for one request; see docs/simulator.md#faults.
 *
 * @example
 * sim.faults.dropSockets({ refuseMs: 200 });
 */
export interface FaultControl {
  /** Merges simulator-wide switches. */
  set(settings: Partial<FaultSettings>): void;
  /** Current switches. */
  get(): Readonly<FaultSettings>;
  /** Back to no faults: switches reset, rules removed, socket refusal lifted. */
  reset(): void;
  /** Installs a failure rule. */
  failRequests(rule: FailureRule): FailureRuleHandle;
  /** Drops every WebSocket now (abruptly, code 1006 on the client, unless `code` is given); returns how many. */
  dropSockets(options?: { refuseMs?: number; code?: number }): number;
  /** Answers WebSocket upgrades with 503 for `ms` milliseconds. */
  refuseSockets(ms: number): void;
  /** Sends the garbage frames to every socket now; returns how many sockets got them. */
  sendGarbageFrames(): number;
  /**
   * The next `times` runs submitted (or a seeded `rate` of them) lose their end messages on the
   * socket, as the `dropEndMessages` switch does for every run; `hits` counts the runs it took.
   */
  dropEndMessages(rule: { times?: number; rate?: number }): FailureRuleHandle;
  /**
   * Restarts the three servers with their state kept (jobs, runs in progress, tasks, files,
   * faults), as clients see it through a load balancer: every WebSocket is closed with 1012
   * (service restart), requests in flight are answered, and for `downMs` every request is
   * answered `503` unprocessed and every upgrade refused; afterwards a request on a connection
   * opened before the restart still gets `503`, each with `Connection: close`. Resolves once the
   * servers are up again.
   */
  restart(options?: { downMs?: number }): Promise<void>;
}

/**
 * A job as the simulator sees it.
 *
 * @example
 * sim.state.jobs().find((job) => job.status === 'failed');
 */
export interface JobSnapshot {
  /** The job's prompt id. */
  id: string;
  /** Its queue number, in submission order from 0. */
  number: number;
  /** Its status, in the documented vocabulary. */
  status: 'pending' | 'in_progress' | 'completed' | 'failed' | 'cancelled';
  /** The `client_id` it was submitted with, when one was sent. */
  clientId?: string;
  /** Its outputs by node id, as `executed` messages carried them. */
  outputs: Record<string, unknown>;
  /** Why it failed, for a failed job. */
  errorMessage?: string;
}

/**
 * Inspection helpers at `sim.state`.
 *
 * @example
 * await sim.state.waitForIdle();
 * expect(sim.state.filesOriginSawCredentials()).toBe(false);
 */
export interface SimulatorState {
  /** Every request received so far (a copy). */
  readonly requests: readonly RequestRecord[];
  /** Forgets the request log. */
  clearRequests(): void;
  /** True once the files origin has received an `X-API-Key` or `Authorization` header. */
  filesOriginSawCredentials(): boolean;
  /** Cloud jobs, oldest first. */
  jobs(): JobSnapshot[];
  /** Number of open WebSockets. */
  socketCount(): number;
  /** Resolves when no workflow is queued or running. */
  waitForIdle(): Promise<void>;
  /** The most cloud jobs seen at once: `running` (at most `accountConcurrency`) and `unfinished` (submitted, not ended). */
  peaks(): {
    /** The most jobs executing at once. */
    running: number;
    /** The most jobs submitted and not ended (pending or running) at once. */
    unfinished: number;
  };
  /** Stored file names of one folder type (`input`, `temp`, `output`). */
  files(type: 'input' | 'temp' | 'output'): string[];
}

/**
 * A running simulator.
 *
 * @example
 * const sim = await startSimulator();
 * await fetch(`${sim.cloudUrl}/api/object_info`, { headers: { 'X-API-Key': sim.apiKey } });
 * await sim.close();
 */
export interface Simulator {
  /** Base URL of the cloud API (no trailing slash); the socket is `${cloudUrl}/ws` on `ws:`. */
  cloudUrl: string;
  /** Base URL of the node registry API. */
  registryUrl: string;
  /** Base URL of the media proxy (`/proxy/...` paths); equals `registryUrl`. */
  proxyUrl: string;
  /** Second origin serving signed files and proxy results. */
  filesUrl: string;
  /** Which server it plays: the hosted cloud or a local runtime. */
  runtime: 'cloud' | 'local';
  /** Cloud API key of the demo user (also the platform key of the proxy). */
  apiKey: string;
  /** Cloud API key of a second user: one user's jobs answer `403` to the other's key. */
  otherApiKey: string;
  /** Registry and proxy Bearer token of the demo user, owner of `demo-publisher`. */
  token: string;
  /** Bearer token of a user who is only a `member` of `demo-publisher` (registry writes answer `403`). */
  memberToken: string;
  /** Fault injection: switches, failure rules, dropped sockets, restarts. */
  faults: FaultControl;
  /** Inspection: the request log, jobs, sockets, stored files. */
  state: SimulatorState;
  /** Terminates sockets, timers and servers. */
  close(): Promise<void>;
}
