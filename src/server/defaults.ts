/**
 * The relay's policies, frozen. Every option of `createRelay()` that overrides one of them names
 * it in its `@default` tag.
 *
 * @example
 * ```ts
 * import { RELAY_DEFAULTS } from 'graphcloud/server';
 * console.log(RELAY_DEFAULTS.maxBodyBytes); // 20971520
 * ```
 */
export const RELAY_DEFAULTS = Object.freeze({
  /**
   * Largest request body the relay reads (an upload, a submission), in bytes; a larger one is
   * answered `413` before anything is sent upstream.
   * @default 20_971_520 (20 MiB)
   */
  maxBodyBytes: 20 * 1024 * 1024,
  /**
   * Time allowed to receive a request body whole, in ms; a slower one is answered `408` and its
   * connection closed (a body sent a byte at a time must not hold a socket for minutes).
   * @default 30_000
   */
  bodyTimeoutMs: 30_000,
  /**
   * Time allowed for one upstream request, in ms: until its answer's headers, and then between two
   * chunks of its body.
   * @default 60_000
   */
  timeout: 60_000,
  /**
   * Lifetime of a job or task token, in ms.
   * @default 86_400_000 (24 hours)
   */
  tokenTtlMs: 24 * 60 * 60 * 1000,
  /**
   * How long the relay remembers a job's output files (to check that a file asked for belongs to
   * the token's job), in ms; per instance.
   * @default 60_000
   */
  outputsCacheMs: 60_000,
  /**
   * Jobs whose output list is remembered at once, per instance.
   * @default 1_000
   */
  outputsCacheSize: 1_000,
  /** The socket relay: browser sockets, the shared upstream socket, held messages. */
  socket: Object.freeze({
    /**
     * Jobs one browser socket may follow at once; a subscription beyond replaces a job that ended,
     * or is refused.
     * @default 32
     */
    maxSubscriptions: 32,
    /**
     * Largest message a browser may send on the socket, in bytes (a subscription is about 200).
     * @default 4_096
     */
    maxMessageBytes: 4_096,
    /**
     * Bytes queued for one browser before the relay closes its socket (code 1013): a slow reader
     * must not make the relay buffer without bound.
     * @default 16_777_216 (16 MiB)
     */
    maxBufferedBytes: 16 * 1024 * 1024,
    /**
     * Time a browser's upgrade waits for the shared upstream socket to open, in ms; then `503`.
     * @default 10_000
     */
    openTimeoutMs: 10_000,
    /**
     * Delay before the upstream socket closes once no browser is connected, in ms.
     * @default 30_000
     */
    idleCloseMs: 30_000,
    /** Messages of jobs no browser of this instance follows yet, kept for a late subscription. */
    hold: Object.freeze({
      /**
       * Bytes of held messages, per instance; the oldest jobs' messages go first.
       * @default 4_194_304 (4 MiB)
       */
      maxBytes: 4 * 1024 * 1024,
      /**
       * Bytes of held previews (binary frames), per instance, apart from the text messages so a
       * large preview never pushes out a job's end.
       * @default 2_097_152 (2 MiB)
       */
      maxPreviewBytes: 2 * 1024 * 1024,
      /**
       * Age after which the held messages of a job are dropped, in ms.
       * @default 30_000
       */
      maxAgeMs: 30_000,
    }),
    /** Reconnects of the upstream socket: capped exponential backoff with jitter. */
    reconnect: Object.freeze({
      /** @default 250 */
      minDelayMs: 250,
      /** @default 15_000 */
      maxDelayMs: 15_000,
      /** @default 2 */
      growFactor: 2,
      /** A connection open this long resets the backoff. @default 5_000 */
      minUptimeMs: 5_000,
      /** Time allowed for one connection attempt, in ms. @default 10_000 */
      connectionTimeoutMs: 10_000,
    }),
  }),
});
