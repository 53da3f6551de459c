import {
  ApiError,
  AuthenticationError,
  BudgetExceededError,
  ConnectionError,
  GraphcloudError,
  InsufficientCreditsError,
  InvalidWorkflowError,
  JobFailedError,
  NotFoundError,
  OutputDownloadError,
  PermissionDeniedError,
  SubmissionUnknownError,
  SubscriptionInactiveError,
  TaskFailedError,
  TimeoutError,
  ValidationError,
  WorkflowAddressError,
  WorkflowConversionError,
  WorkflowError,
  WorkflowValidationError,
} from '../../index.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { formatUsd, formatUsdRange } from './money.js';

/**
 * An error the CLI itself raises: one sentence, the fix, and the exit code.
 *
 * @example
 * ```ts
 * throw new CliError('No workflow file given.', 'Run `graphcloud run <workflow.json>`.', EXIT.usage);
 * ```
 */
export class CliError extends Error {
  override name = 'CliError';
  readonly fix: string | undefined;
  readonly exitCode: ExitCode;
  /** The job or task this error leaves running, printed so it is not lost. */
  readonly submitted: string | undefined;

  constructor(message: string, fix: string | undefined, exitCode: ExitCode, options?: { cause?: unknown; submitted?: string }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.fix = fix;
    this.exitCode = exitCode;
    this.submitted = options?.submitted;
  }
}

/**
 * A usage error: a bad command, flag or value (exit code 2).
 *
 * @example
 * ```ts
 * throw usageError('--timeout takes a duration such as 90s or 10m.', 'graphcloud run --help');
 * ```
 */
export function usageError(message: string, helpCommand: string): CliError {
  return new CliError(message, `See \`${helpCommand}\`.`, EXIT.usage);
}

/** Which service a command talks to, and the environment variables that configure it. */
export interface ErrorContext {
  /** `cloud`, `registry`, `media proxy`. */
  service: string;
  /** The variable holding its credential, e.g. `GRAPHCLOUD_API_KEY`. */
  keyVariable: string;
  /** The variable holding its URL, e.g. `GRAPHCLOUD_CLOUD_URL`. */
  urlVariable: string;
  /** True when no credential was configured. */
  keyMissing: boolean;
}

/**
 * What the CLI prints for an error: one sentence, the fix, the exit code, and the job or task it
 * leaves running.
 *
 * @example
 * ```ts
 * const { message, fix, exitCode } = describeError(error, context);
 * ```
 */
export interface ErrorReport {
  exitCode: ExitCode;
  message: string;
  fix: string | undefined;
  /** Id of submitted work the error stopped following (a prompt id or a task id). */
  submitted: string | undefined;
}

/**
 * Turns any error into what the CLI prints. SDK messages are credential-free already; the output
 * layer redacts the configured keys once more.
 *
 * @example
 * ```ts
 * const report = describeError(new TimeoutError('waiting for job 1', 5000), context);
 * report.exitCode; // 4
 * ```
 */
export function describeError(error: unknown, context: ErrorContext | undefined): ErrorReport {
  const report = (exitCode: ExitCode, message: string, fix?: string): ErrorReport => ({ exitCode, message, fix, submitted: submittedId(error) });
  if (error instanceof CliError) return { exitCode: error.exitCode, message: error.message, fix: error.fix, submitted: error.submitted };
  const service = context?.service ?? 'service';
  if (error instanceof JobFailedError) {
    if (error.status === 'cancelled') return report(EXIT.cancelled, `Job ${error.promptId} was cancelled.`);
    const where = error.result.error?.nodeId ? ` in node ${error.result.error.nodeId}${error.result.error.nodeType ? ` (${error.result.error.nodeType})` : ''}` : '';
    return report(EXIT.failed, `Job ${error.promptId} failed${where}: ${error.result.error?.message ?? 'no reason given'}.`, 'Fix the node named above and run again.');
  }
  if (error instanceof TaskFailedError) {
    return report(EXIT.failed, `The ${error.kind} task ${error.taskId} ${error.reason === 'failed' ? `failed (${error.errCode ?? error.status})` : 'finished without a result'}.`, 'Check the task parameters and submit again.');
  }
  if (error instanceof BudgetExceededError) {
    if (error.code === 'unpriced') {
      const nodes = error.estimate.unpriced.map((node) => `  - node ${node.id} (${node.classType}): ${node.reason}`);
      return report(EXIT.usage, `--max-cost cannot be checked: ${nodes.length === 1 ? 'a partner node has' : `${nodes.length} partner nodes have`} no price; nothing was sent:\n${nodes.join('\n')}`, 'Pass --allow-unpriced to count them as free, or leave out --max-cost.');
    }
    return report(EXIT.usage, `The run could cost up to ${formatUsd(error.estimate.usd.max)} (estimate ${formatUsdRange(error.estimate.usd)}), over --max-cost ${formatUsd(error.limit.usd)}; nothing was sent.`, 'Raise --max-cost, or see each node\'s price with `graphcloud estimate`.');
  }
  if (error instanceof InvalidWorkflowError) {
    const lines = error.workflowIssues.map((i) => `  - node ${i.nodeId}${i.input ? ` input ${i.input}` : ''}: ${i.message}`);
    return report(EXIT.usage, `The workflow does not match the server's node definitions; nothing was sent:\n${lines.join('\n')}`, 'Fix the inputs listed above (or pass --skip-validation to send it anyway).');
  }
  if (error instanceof WorkflowValidationError || error instanceof WorkflowError) {
    return report(EXIT.usage, `The ${service} rejected the workflow; nothing ran: ${stripStatus(error.message)}`, 'Fix the nodes it names and run again.');
  }
  if (error instanceof WorkflowAddressError || error instanceof WorkflowConversionError) {
    // Their message names the node or the address, the candidates and the fix already.
    return report(EXIT.usage, error.message, undefined);
  }
  if (error instanceof ValidationError) {
    return report(EXIT.usage, error.message, 'Fix the values listed above and run again.');
  }
  if (error instanceof AuthenticationError) {
    if (context?.keyMissing) return report(EXIT.auth, `The ${service} needs a key, and none is set.`, `Set ${context.keyVariable}.`);
    return report(EXIT.auth, `The ${service} refused the key (${error.status}).`, `Check ${context?.keyVariable ?? 'your key'}.`);
  }
  if (error instanceof PermissionDeniedError) {
    return report(EXIT.auth, `The ${service} refused this with your key (403): ${stripStatus(error.message)}`, `Use a key of an account allowed to do it (${context?.keyVariable ?? 'your key'}).`);
  }
  if (error instanceof InsufficientCreditsError) return report(EXIT.error, `The ${service} answered 402: not enough credits to run this.`, 'Add credits to your account, then run again.');
  if (error instanceof SubscriptionInactiveError) return report(EXIT.error, `The ${service} answered 429: the subscription is not active.`, 'Activate the subscription of your account, then run again.');
  if (error instanceof SubmissionUnknownError) {
    const id = error.promptId;
    const look = id ? `Look it up with \`graphcloud jobs get ${id}\`` : 'Look for it with `graphcloud jobs list`';
    return report(EXIT.error, `The submission got no answer: the job${id ? ` ${id}` : ''} may exist and may be running (it was not sent again).`, `${look} before running again.`);
  }
  if (error instanceof TimeoutError) {
    const id = submittedId(error);
    if (id) return report(EXIT.timeout, `Stopped waiting after ${formatMs(error.timeoutMs)}; ${id} goes on running.`, `Wait for it again with \`graphcloud ${waitCommand(error, id)}\`.`);
    return report(EXIT.timeout, `The ${service} did not answer in time (${error.operation}, ${formatMs(error.timeoutMs)}).`, 'Try again, or raise --timeout.');
  }
  if (error instanceof OutputDownloadError) {
    return report(EXIT.error, `Job ${error.promptId} ${error.result.status}, but downloading its outputs failed.`, `Fetch them again with \`graphcloud jobs get ${error.promptId} --out <dir>\`.`);
  }
  if (error instanceof ConnectionError) {
    const url = error.url.replace(/^(https?:\/\/[^/]+).*$/, '$1');
    if (error.code === 'ERR_BLOCKED_PORT') {
      return report(EXIT.error, `Cannot reach the ${service} at ${url}: fetch refuses to connect to that port (one the Fetch standard blocks).`, `Serve the ${service} on another port, and change ${context?.urlVariable ?? 'the URL'}.`);
    }
    return report(EXIT.error, `Could not reach the ${service} at ${url}${error.code ? ` (${error.code})` : ''}.`, `Check ${context?.urlVariable ?? 'the URL'} and your network.`);
  }
  if (error instanceof NotFoundError) return report(EXIT.error, `The ${service} found no such thing (404): ${stripStatus(error.message)}`, 'Check the id.');
  if (error instanceof ApiError) return report(EXIT.error, `The ${service} answered ${error.status}: ${stripStatus(error.message)}`, error.status >= 500 ? 'Try again later.' : undefined);
  if (error instanceof GraphcloudError) return report(EXIT.error, error.message, 'Run again with --debug for details.');
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) {
    const path = (error as { path?: unknown }).path;
    return report(EXIT.error, `${typeof path === 'string' ? `${path}: ` : ''}${describeSystemError(code, error)}.`, undefined);
  }
  return report(EXIT.error, `Unexpected error: ${error instanceof Error ? error.message : String(error)}`, 'Run again with --debug, and report it if it persists.');
}

function submittedId(error: unknown): string | undefined {
  const work = error instanceof GraphcloudError ? error.submitted : undefined;
  if (!work) return undefined;
  return 'promptId' in work ? `job ${work.promptId}` : `${work.kind} task ${work.taskId}`;
}

function waitCommand(error: GraphcloudError, id: string): string {
  const work = error.submitted;
  if (work && 'taskId' in work) return `task wait ${work.kind} ${work.taskId}`;
  return `jobs watch ${id.replace(/^job /, '')}`;
}

function stripStatus(message: string): string {
  // "404 Node not found (GET https://…)" → "Node not found"; the status is said already.
  return message.replace(/^\d{3} /, '').replace(/ \((?:GET|POST|PUT|DELETE|PATCH) [^)\n]*\)/, '');
}

function describeSystemError(code: string, error: unknown): string {
  switch (code) {
    case 'ENOENT':
      return 'no such file or folder';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a folder, not a file';
    case 'ENOTDIR':
      return 'a part of the path is not a folder';
    case 'ENOSPC':
      return 'no space left on the disk';
    default:
      return `${code}${error instanceof Error ? `: ${error.message}` : ''}`;
  }
}

/**
 * A duration for people: `850 ms`, `12.4 s`, `3 min 5 s`, `1 h 2 min`.
 *
 * @example
 * ```ts
 * formatMs(185_000); // '3 min 5 s'
 * ```
 */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
  return `${Math.floor(s / 3600)} h${Math.floor((s % 3600) / 60) ? ` ${Math.floor((s % 3600) / 60)} min` : ''}`;
}
