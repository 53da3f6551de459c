import { SubmissionUnknownError } from '../../cloud/shared/errors.js';

/**
 * What is known of a run that may have been submitted but whose job could not be found: its
 * worker marked it "submitting" and tagged the submission (`extra_data.graphcloud_run`), then
 * stopped before the answer was stored, and the worker that took it over found no job with that
 * tag among the jobs created since. The run ends in state `unknown`; it is never submitted again
 * on a guess. A `SubmissionUnknownError`, like a lost answer in one process.
 *
 * @example
 * ```ts
 * catch (e) { if (e instanceof RunUnknownError) console.log(e.runId, e.runtime, new Date(e.submittingSince)); }
 * ```
 */
export class RunUnknownError extends SubmissionUnknownError {
  /** `'RunUnknownError'`: the class, readable in logs and `JSON.stringify` (unlike `instanceof`). */
  override name = 'RunUnknownError';
  /** The run's id: the tag its submission carried in `extra_data.graphcloud_run`. */
  readonly runId: string;
  /** The runtime it was sent to. */
  readonly runtime: string;
  /** When its worker marked it submitting, in ms since the epoch. */
  readonly submittingSince: number;
  /** How many jobs created since were read in the search. */
  readonly searched: number;

  constructor(runId: string, runtime: string, submittingSince: number, searched: number, promptId?: string) {
    const cause = new Error(`no job tagged with run ${runId} among the ${searched} jobs created since ${new Date(submittingSince).toISOString()}`);
    super(`${runtime}/api/prompt`, cause, promptId, false);
    this.runId = runId;
    this.runtime = runtime;
    this.submittingSince = submittingSince;
    this.searched = searched;
    this.message = `Run ${runId}: its worker stopped while submitting it to ${runtime}, and ${cause.message}. The job may exist and be billed; it was not submitted again. Check your jobs (cloud.jobs.listAll()) before adding it again.`;
  }
}
