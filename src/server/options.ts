import type { CustomRoute, RouteName } from './routes.js';

/**
 * A credential of the relay: the secret, or a function returning it (called per upstream request,
 * so a rotated key is picked up).
 *
 * @example
 * ```ts
 * const apiKey: RelayCredential = async () => (await vault.read('graphcloud')).key;
 * ```
 */
export type RelayCredential = string | (() => string | Promise<string>);

/**
 * What `authorize` is told besides the request: the name of the route group asked for
 * (`submit`, `view`, `socket`...; a custom route is `"<METHOD> <path>"`).
 *
 * @example
 * ```ts
 * authorize: (request, { route }) => route !== 'submit' || isSignedIn(request)
 * ```
 */
export interface AuthorizeContext {
  /** The route group asked for (`submit`, `view`, `socket`...), or `"<METHOD> <path>"` for a custom route. */
  route: string;
}

/**
 * A submission as the relay received it (the JSON body of `POST /api/prompt`): `prompt` (the
 * workflow), and `extra_data` or other fields the browser sent.
 *
 * @example
 * ```ts
 * const body: SubmitBody = { prompt: { '1': { class_type: 'LoadImage', inputs: { image: 'a.png' } } } };
 * ```
 */
export interface SubmitBody {
  /** The API-format workflow, node id to node. */
  prompt: Record<string, unknown>;
  /** Any other field the browser sent (`extra_data`, `client_id`...). */
  [field: string]: unknown;
}

/**
 * What a submission hook may answer: nothing (send it as it is), a body to send instead, or a
 * `Response` to answer the browser with (the submission is not sent).
 *
 * @example
 * ```ts
 * const verdict: SubmitVerdict = new Response('batch too large', { status: 422 });
 * ```
 */
export type SubmitVerdict = SubmitBody | Response | undefined | void;

/**
 * Options of `createRelay()`. `cloudUrl`, `secret` and one of `authorize` or
 * `dangerouslyAllowAnyone` are required.
 *
 * @example
 * ```ts
 * createRelay({
 *   cloudUrl: 'https://cloud.example.com',
 *   apiKey: process.env.CLOUD_API_KEY,
 *   secret: process.env.RELAY_SECRET, // 32 characters or more, the same on every instance
 *   authorize: async (request) => (await sessions.read(request)) !== undefined,
 *   basePath: '/api/graphcloud',
 * });
 * ```
 */
export interface RelayOptions {
  /** The cloud's base URL (or a local runtime's). */
  cloudUrl: string;
  /** The platform key, added to every upstream request (`X-API-Key`) and the upstream socket; a function is called per request. Optional for a local runtime. */
  apiKey?: RelayCredential | undefined;
  /**
   * Secret of the job and task tokens (HMAC-SHA256), at least 32 characters, the same on every
   * instance behind a load balancer. A list rotates: the first signs, all verify.
   */
  secret: string | readonly string[];
  /**
   * Decides whether a request may use the relay (your session check): `true`, `false` (answered
   * `401`), or a `Response` to answer with. Called for every request and every socket upgrade.
   */
  authorize?: ((request: Request, context: AuthorizeContext) => boolean | Response | Promise<boolean | Response>) | undefined;
  /**
   * Serve everyone, with no `authorize`: for local development only. Anyone who reaches the relay
   * spends your account.
   */
  dangerouslyAllowAnyone?: boolean | undefined;
  /** The path the relay is mounted at, e.g. `/api/graphcloud` (the browser's `baseUrl`). @default '' */
  basePath?: string | undefined;
  /** The route groups served, by name (`RELAY_ROUTES`), and routes of your own. @default RELAY_DEFAULT_ROUTES */
  routes?: readonly (RouteName | CustomRoute)[] | undefined;
  /** The media proxy's base URL; without it, the task routes are not served. */
  proxyUrl?: string | undefined;
  /** A Bearer token for the media proxy. @default the `apiKey`, as `X-API-Key` */
  proxyToken?: RelayCredential | undefined;
  /** The registry's base URL, for the `registryRead` and `registryWrite` routes. */
  registryUrl?: string | undefined;
  /** The Bearer token of registry requests. @default the `apiKey`, as `X-API-Key` */
  registryToken?: RelayCredential | undefined;
  /**
   * Checks, rewrites or refuses a submission before it is sent (cap batch sizes, pin the workflow).
   * What it throws is answered `500` and nothing is sent.
   */
  onSubmit?: ((body: SubmitBody, request: Request) => SubmitVerdict | Promise<SubmitVerdict>) | undefined;
  /** The same for media task submissions; `path` is the task route. */
  onTaskSubmit?: ((body: Record<string, unknown>, context: { path: string; request: Request }) => Record<string, unknown> | Response | undefined | void | Promise<Record<string, unknown> | Response | undefined | void>) | undefined;
  /** Add the platform key to submissions as `extra_data.api_key_platform_org` (workflows with partner nodes). @default false */
  partnerApiKey?: boolean | undefined;
  /**
   * How `/api/view` answers: `stream` the bytes, or `url` (the signed URL as JSON `{url}` to a
   * request that accepts JSON, a `302` to it otherwise, so an `<img>` still works).
   * @default 'stream'
   */
  viewMode?: 'stream' | 'url' | undefined;
  /** Origins (besides the relay's own) whose pages may call it, e.g. `https://app.example.com`. @default none */
  allowedOrigins?: readonly string[] | undefined;
  /**
   * Origins `/api/view` follows the cloud's redirects to (its storage host, fetched without the
   * key), e.g. `https://storage.example.com`. Loopback, private and link-local addresses are
   * followed only when listed here (or when the cloud itself is on one).
   * @default the first origin the cloud redirects a file to, learnt once per instance
   */
  viewOrigins?: readonly string[] | undefined;
  /** @default RELAY_DEFAULTS.maxBodyBytes (20 MiB) */
  maxBodyBytes?: number | undefined;
  /** Time to receive a request body whole, in ms; then `408 body_timeout`. @default RELAY_DEFAULTS.bodyTimeoutMs (30 s) */
  bodyTimeoutMs?: number | undefined;
  /** Per upstream request, in ms. @default RELAY_DEFAULTS.timeout (60 s) */
  timeout?: number | undefined;
  /** @default RELAY_DEFAULTS.tokenTtlMs (24 h) */
  tokenTtlMs?: number | undefined;
  /** The upstream socket's `clientId`, written into every submission's `client_id` (a local runtime sends a job's events to that socket only). @default a random UUID per instance */
  clientId?: string | undefined;
  /** Socket policies over `RELAY_DEFAULTS.socket`. */
  socket?: RelaySocketOptions | undefined;
  /** WebSocket constructor of the upstream socket (`ws` on runtimes without a global one). @default globalThis.WebSocket */
  WebSocket?: RelayWebSocketConstructor | undefined;
  /** `fetch` of the upstream requests. @default globalThis.fetch */
  fetch?: typeof fetch | undefined;
  /** Told about upstream failures (scrubbed of credentials), for your logs. What it throws is dropped. */
  onError?: ((error: Error) => unknown) | undefined;
}

/**
 * Socket policies of the relay (see `RELAY_DEFAULTS.socket`).
 *
 * @example
 * ```ts
 * const socket: RelaySocketOptions = { maxSubscriptions: 8, hold: { maxAgeMs: 10_000 } };
 * ```
 */
export interface RelaySocketOptions {
  /** Jobs one browser socket may follow at once. @default 32 */
  maxSubscriptions?: number | undefined;
  /** Largest message a browser may send on the socket, in bytes. @default 4_096 */
  maxMessageBytes?: number | undefined;
  /** Bytes queued for one browser before the relay closes its socket (code 1013). @default 16_777_216 (16 MiB) */
  maxBufferedBytes?: number | undefined;
  /** Time a browser's upgrade waits for the upstream socket to open, in ms; then `503`. @default 10_000 */
  openTimeoutMs?: number | undefined;
  /** Delay before the upstream socket closes once no browser is connected, in ms. @default 30_000 */
  idleCloseMs?: number | undefined;
  /** Messages of jobs no browser follows yet, kept for a late subscription (per instance). */
  hold?:
    | {
        /** Bytes of held text messages; the oldest jobs' go first. @default 4_194_304 (4 MiB) */
        maxBytes?: number | undefined;
        /** Bytes of held previews, apart from the text messages. @default 2_097_152 (2 MiB) */
        maxPreviewBytes?: number | undefined;
        /** Age after which a job's held messages are dropped, in ms. @default 30_000 */
        maxAgeMs?: number | undefined;
      }
    | undefined;
  /** Reconnects of the upstream socket: capped exponential backoff with jitter. */
  reconnect?:
    | {
        /** First reconnect delay, in ms. @default 250 */
        minDelayMs?: number | undefined;
        /** Cap of one reconnect delay, in ms. @default 15_000 */
        maxDelayMs?: number | undefined;
        /** Growth of the delay per failed attempt. @default 2 */
        growFactor?: number | undefined;
        /** A connection open this long, in ms, resets the backoff. @default 5_000 */
        minUptimeMs?: number | undefined;
        /** Time allowed for one connection attempt, in ms. @default 10_000 */
        connectionTimeoutMs?: number | undefined;
      }
    | undefined;
}

/**
 * The WebSocket constructor of the relay's upstream socket: the global `WebSocket` (Node 22+,
 * Deno, Bun) and the `ws` package both fit.
 *
 * @example
 * ```ts
 * import WebSocket from 'ws';
 * createRelay({ ...options, WebSocket });
 * ```
 */
export type RelayWebSocketConstructor = new (url: string) => {
  /** `0` connecting, `1` open, `2` closing, `3` closed. */
  readonly readyState: number;
  /** Set to `arraybuffer` by the relay, so binary frames (previews) arrive as bytes. */
  binaryType: string;
  /** Sends a text message. */
  send(data: string): void;
  /** Closes the connection with an optional close code and reason. */
  close(code?: number, reason?: string): void;
  /** Registers a listener; the relay listens to all four events. */
  // `any`: the DOM and `ws` declare different event classes; the socket reads them defensively.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  addEventListener(type: 'open' | 'message' | 'close' | 'error', listener: (event: any) => void): void;
};
