/**
 * Paid work the SDK submitted and then stopped following: a cloud job (`kind: 'job'`) or a media
 * task (its task kind and id). Wait for it again with `cloud.jobs.watch(promptId)` or
 * `proxy.waitForTask(submitted)`.
 *
 * @example
 * ```ts
 * const lost: SubmittedWork = { kind: 'job', promptId: '7c1f…' };
 * ```
 */
export type SubmittedWork =
  | {
      /** A cloud job. */
      kind: 'job';
      /** The job's id (`prompt_id`): `cloud.jobs.watch(promptId)` follows it again. */
      promptId: string;
    }
  | {
      /** The media task's kind (`'upscale'`, `'referenceToVideo'`...). */
      kind: string;
      /** The task's id (`task_id`): `proxy.waitForTask({ kind, taskId })` follows it again. */
      taskId: string;
    };

/**
 * Base class of every error the SDK throws (aborts reject with the caller's `signal.reason` instead).
 *
 * @example
 * ```ts
 * try { await registry.nodes.get('comfy-x'); }
 * catch (error) { if (error instanceof GraphcloudError) console.error(error.message); }
 * ```
 */
export class GraphcloudError extends Error {
  /** `'GraphcloudError'`: the class, readable in logs and `JSON.stringify` (unlike `instanceof`); each subclass has its own. */
  override name = 'GraphcloudError';
  /**
   * Set when the error ended a wait for work already submitted (and paid for): the job or task
   * goes on, and this names it so it is not lost.
   */
  declare submitted?: SubmittedWork | undefined;

  /** A plain, credential-free description used by `JSON.stringify(error)`. */
  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = { name: this.name, message: this.message };
    for (const [key, value] of Object.entries(this)) {
      if (key !== 'cause') out[key] = value;
    }
    return out;
  }
}

/**
 * Marks an error as ending the wait for `work`: an SDK error gets `submitted` (once); anything
 * else (the caller's abort reason) is returned unchanged.
 *
 * @example
 * ```ts
 * catch (error) { throw withSubmitted(error, { kind: 'job', promptId }); }
 * ```
 */
export function withSubmitted(error: unknown, work: SubmittedWork): unknown {
  if (error instanceof GraphcloudError && error.submitted === undefined) error.submitted = work;
  return error;
}

/**
 * The client was closed (`close()` or `await using`): work in flight stopped, and later calls
 * fail with this error. Jobs and tasks already submitted go on running on the server.
 *
 * @example
 * ```ts
 * await registry.close();
 * await registry.nodes.get('x').catch((e) => e instanceof ClientClosedError); // true
 * ```
 */
export class ClientClosedError extends GraphcloudError {
  /** `'ClientClosedError'`: the class, readable in logs and `JSON.stringify` (unlike `instanceof`). */
  override name = 'ClientClosedError';

  constructor(client: string) {
    super(`The ${client} was closed; create a new client to send more requests`);
  }
}
