// The chaos run: concurrent `cloud.runWorkflow()` jobs against the simulator while it drops and
// refuses sockets, stalls status bodies after their headers, answers 5xx and restarts with its job
// state kept; one run in ten finishes before its submission is answered. It counts what a user would: correct results (each job's own outputs), hangs,
// duplicate submissions, unhandled rejections, and any credential in what the SDK produced.
// The intense profile adds what makes a result wrong rather than late: runs whose end messages are lost while the socket stays up, runs that fail, and runs
// cancelled while they run or before they are watched. Its oracle is the simulator's record of
// each job: a result is correct when its status is the job's (and, completed, its own outputs).
// Used by test/chaos/chaos.test.ts (`npm test`) and scripts/chaos.mjs (`npm run chaos`).
import { inspect } from 'node:util';
import { ApiError, ConnectionError, GraphcloudError } from '../../src/core/index.js';
import { CloudClient, JobFailedError, type JobResult, type Workflow } from '../../src/index.js';
import { encodePng, FAULT_HEADER, startSimulator, type Simulator } from '../../src/testing/index.js';
import { startMonkey, type FaultCounts } from './monkey.js';

/** How a chaos run is shaped. */
export interface ChaosOptions {
  jobs: number;
  /** Jobs in flight at once. @default 50 */
  concurrency?: number;
  /** Seeds the simulator's fault draws and the monkey's schedule. @default 1 */
  seed?: number;
  /** A job not settled this long after it started counts as a hang. @default 120_000 */
  hangMs?: number;
  /** `intense`: lost end messages, failing and cancelled runs beside the classic faults. @default 'classic' */
  profile?: ChaosProfile;
  /**
   * The runtime the simulator plays: the cloud, or a local runtime (no cancel route: a cancel is a
   * queue delete or an interrupt; a job's status is its history, then its queue). @default 'cloud'
   */
  runtime?: 'cloud' | 'local';
}

/** The chaos profiles: `classic` (every run completes) and `intense` (see the top of this file). */
export type ChaosProfile = 'classic' | 'intense';

/** What one run of the intense profile does beside completing; the classic profile runs only `plain`. */
type RunKind = 'plain' | 'drop-end' | 'fail' | 'cancel-running' | 'cancel-early';

/** What one run resolved with; `cancelled`: a cancel the server accepted, `asked`: a cancel called (before the run settled). */
interface Outcome {
  index: number;
  kind: RunKind;
  result: JobResult;
  cancelled: boolean;
  asked: boolean;
}

/**
 * The kind of run `index`, fixed by its index (a count, not a draw): in the intense profile, one
 * run in 20 loses its end messages, one in 25 fails (its end messages lost in one of those in 5),
 * one in 25 is cancelled when its last node starts and one in 25 right after its submission,
 * before it is watched.
 */
function kindOf(profile: ChaosProfile, index: number): RunKind {
  if (profile === 'classic') return 'plain';
  if (index % 25 === 11) return 'fail';
  if (index % 25 === 5) return 'cancel-running';
  if (index % 25 === 17) return 'cancel-early';
  return index % 20 === 7 ? 'drop-end' : 'plain';
}

/** What a chaos run measured. */
export interface ChaosReport {
  jobs: number;
  concurrency: number;
  seed: number;
  profile: ChaosProfile;
  runtime: 'cloud' | 'local';
  /** Runs whose result is the job's status (as the simulator recorded it) and, completed, its own outputs. */
  correct: number;
  /** Runs that resolved with a status the job did not end with, or with someone else's outputs, or none. */
  wrong: number;
  /** A few of those, printed. */
  wrongSamples: string[];
  /** Jobs that rejected (with an SDK error). */
  failed: number;
  failures: Record<string, number>;
  hangs: number;
  duplicateSubmissions: number;
  unhandledRejections: number;
  credentialsFound: number;
  /** Rejections that were not a GraphcloudError. */
  foreignErrors: number;
  /** Submissions sent again because the first certainly did not start (refused connection, or a 503 answer). */
  resubmitted: number;
  viaSocket: number;
  viaPoll: number;
  /** Intense profile: runs that lost their end messages, runs that failed, cancels the server accepted. */
  endsDropped: number;
  failing: number;
  cancelsAccepted: number;
  /** Of those cancelled runs, how many completed all the same (the cancel landed in their last node, or after it). */
  completedAfterCancel: number;
  faults: FaultCounts;
  durationMs: number;
}

const FAST_WATCHER = {
  waitTimeout: 120_000,
  socket: { minDelayMs: 10, maxDelayMs: 150, idleCloseMs: 5, connectionTimeoutMs: 2_000 },
  poll: { minDelayMs: 100, maxDelayMs: 400, silenceMs: 1_000, concurrency: 16 },
};
const FAST_RETRY = { limit: 8, budgetMs: 20_000, minDelayMs: 20, maxDelayMs: 250 };
/** Per-attempt HTTP timeout: a status body held after its headers costs this much. */
const ATTEMPT_TIMEOUT_MS = 1_500;
/**
 * The submission's attempt timeout. The chaos never stalls a submission; on a loaded machine the
 * in-process simulator can take longer than the status budget to answer 200 runs at once, and a
 * lost submission answer is rightly a SubmissionUnknownError, which is not what this run measures.
 */
const SUBMIT_TIMEOUT_MS = 15_000;
const MAX_SUBMISSIONS = 20;

/** LoadImage -> ImageScale -> SaveImage under the job's own prefix; a failing run has a FailNode in the middle. */
function workflow(image: string, index: number, fail = false): Workflow {
  const scale = fail
    ? { class_type: 'FailNode', inputs: { message: `chaos${index} failed` } }
    : { class_type: 'ImageScale', inputs: { image: ['1', 0], upscale_method: 'bilinear', width: 8 + (index % 40), height: 0, crop: 'disabled' } };
  return {
    '1': { class_type: 'LoadImage', inputs: { image } },
    '2': scale,
    '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: `chaos${index}` } },
  };
}

const ownOutputs = (index: number) => ({ images: [{ filename: `chaos${index}_00001_.png`, subfolder: '', type: 'output' }] });

/** True when a submission certainly did not start: sending it again cannot run it twice. */
function notStarted(error: unknown): boolean {
  if (error instanceof ConnectionError) return error.notSent;
  // The cloud's 503 to a submission: refused, nothing runs (docs/wire-protocol.md#error-bodies).
  return error instanceof ApiError && error.status === 503 && error.method === 'POST';
}

/** Every printing of a value: inspect, JSON, String, and its cause chain. */
function renderings(value: unknown): string {
  const parts = [inspect(value, { depth: 12, showHidden: true, maxArrayLength: 20 })];
  try {
    parts.push(JSON.stringify(value) ?? '');
  } catch {
    // Circular values are covered by inspect.
  }
  for (let current: unknown = value; current instanceof Error; current = current.cause) parts.push(String(current), current.stack ?? '');
  return parts.join('\n');
}

/** Runs the chaos and returns what it measured; closes everything it opened. */
export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const { jobs, concurrency = 50, seed = 1, hangMs = 120_000, profile = 'classic', runtime = 'cloud' } = options;
  const started = performance.now();
  let unhandledRejections = 0;
  const onUnhandled = (): void => void unhandledRejections++;
  process.on('unhandledRejection', onUnhandled);
  // The intense profile's runs take a little time, eight at once, so that a cancel can land in one.
  const pace = profile === 'intense' ? { stepDelayMs: 10, progressSteps: 2, accountConcurrency: 8 } : { stepDelayMs: 0, progressSteps: 1 };
  const sim: Simulator = await startSimulator({ ...pace, seed, runtime, cancelRoutes: runtime === 'cloud' });
  const produced: unknown[] = [];
  const hooks = { onRequest: (event: unknown) => void produced.push(event), onResponse: (event: unknown) => void produced.push(event) };
  const cloud = new CloudClient({ baseUrl: sim.cloudUrl, apiKey: sim.apiKey, timeout: ATTEMPT_TIMEOUT_MS, retry: FAST_RETRY, watcher: FAST_WATCHER, ...hooks });
  const report: ChaosReport = {
    jobs, concurrency, seed, profile, runtime, correct: 0, wrong: 0, wrongSamples: [], failed: 0, failures: {}, hangs: 0, duplicateSubmissions: 0, unhandledRejections: 0,
    credentialsFound: 0, foreignErrors: 0, resubmitted: 0, viaSocket: 0, viaPoll: 0, endsDropped: 0, failing: 0, cancelsAccepted: 0, completedAfterCancel: 0,
    faults: {} as FaultCounts, durationMs: 0,
  };
  // What each run resolved with, judged against the simulator's record once every run is done.
  const outcomes: Outcome[] = [];
  let monkey: ReturnType<typeof startMonkey> | undefined;
  try {
    const { name } = await cloud.files.upload(encodePng(16, 16, [200, 80, 40]), { filename: 'chaos.png' });
    monkey = startMonkey(sim, seed);

    const runOne = async (index: number): Promise<void> => {
      const kind = kindOf(profile, index);
      const fail = kind === 'fail';
      // One run in ten finishes, every message sent, before its submission is answered; some lose their end messages.
      const faults = [index % 10 === 3 && 'finish-before-response', (kind === 'drop-end' || (fail && index % 125 === 11)) && 'drop-end'].filter(Boolean);
      if (faults.includes('drop-end')) report.endsDropped++;
      if (fail) report.failing++;
      const headers = faults.length > 0 ? { [FAULT_HEADER]: faults.join(', ') } : undefined;
      let cancelled = false;
      let asked = false;
      const cancel = (promptId: string): Promise<void> => {
        asked = true;
        return cloud.jobs.cancel(promptId).then(
          (answer) => void (cancelled ||= answer.cancelled),
          (error: unknown) => void produced.push(error),
        );
      };
      let result: JobResult | undefined;
      for (let attempt = 1; ; attempt++) {
        try {
          if (kind === 'cancel-early') {
            // As a worker does: the cancel goes out before the watch attaches.
            const { promptId } = await cloud.jobs.submit(workflow(name, index), { timeout: SUBMIT_TIMEOUT_MS, headers });
            await cancel(promptId);
            result = await cloud.jobs.watch(promptId).result();
          } else {
            let promptId = '';
            let cancelling: Promise<void> | undefined;
            result = await cloud.runWorkflow(workflow(name, index, fail), {
              timeout: SUBMIT_TIMEOUT_MS,
              headers,
              onSubmitted: (submitted) => (promptId = submitted.promptId),
              onEvent: (event) => {
                if (index % 10 === 0) produced.push(event);
                // Cancelled once its last node starts: the runtime may finish that node and complete.
                if (kind === 'cancel-running' && event.type === 'executing' && event.data.node === '3') cancelling ??= cancel(promptId);
              },
            }).catch(async (error: unknown) => {
              await cancelling;
              // A failed or cancelled run is a result too: the oracle compares it with the record.
              if (error instanceof JobFailedError) return error.result;
              throw error;
            });
            await cancelling;
          }
          break;
        } catch (error) {
          produced.push(error);
          if (!(error instanceof GraphcloudError)) report.foreignErrors++;
          if (attempt < MAX_SUBMISSIONS && notStarted(error)) {
            report.resubmitted++;
            // As a user would: wait a little before sending again (a restart takes a moment).
            await new Promise((resolve) => setTimeout(resolve, Math.min(50 * attempt, 500)));
            continue;
          }
          report.failed++;
          const code = error instanceof ConnectionError && error.code ? ` [${error.code}]` : '';
          const key = error instanceof Error ? `${error.name}${code}: ${error.message.slice(0, 160)}` : String(error);
          report.failures[key] = (report.failures[key] ?? 0) + 1;
          return;
        }
      }
      produced.push(result);
      if (result.via === 'socket') report.viaSocket++;
      else report.viaPoll++;
      outcomes.push({ index, kind, result, cancelled, asked });
    };

    const bounded = (index: number): Promise<void> => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const hang = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          report.hangs++;
          resolve();
        }, hangMs);
      });
      return Promise.race([runOne(index), hang]).finally(() => clearTimeout(timer));
    };

    let next = 0;
    const lanes = Array.from({ length: Math.min(concurrency, jobs) }, async () => {
      while (next < jobs) await bounded(next++);
    });
    await Promise.all(lanes);
  } finally {
    report.faults = (await monkey?.stop()) ?? report.faults;
    await sim.state.waitForIdle();
    report.duplicateSubmissions = countDuplicates(sim);
    judge(report, outcomes, sim);

    produced.push(cloud, cloud.jobs.stats());
    await cloud.close();
    await sim.close();
    // A rejection nobody handled is reported on the next turns of the event loop.
    await new Promise((resolve) => setTimeout(resolve, 50));
    process.off('unhandledRejection', onUnhandled);
  }
  report.unhandledRejections = unhandledRejections;
  report.credentialsFound = produced.filter((value) => renderings(value).includes(sim.apiKey)).length;
  report.durationMs = performance.now() - started;
  return report;
}

/**
 * The oracle: a result is correct when its status is the one the simulator recorded for its job
 * (a failing run must fail), a completed one carries its own outputs, and `cancelRequested` is
 * set exactly on the runs this client asked to cancel before they settled.
 */
function judge(report: ChaosReport, outcomes: readonly Outcome[], sim: Simulator): void {
  const records = new Map(sim.state.jobs().map((job) => [job.id, job]));
  for (const { index, kind, result, cancelled, asked } of outcomes) {
    const record = records.get(result.promptId);
    if (cancelled) report.cancelsAccepted++;
    if (cancelled && record?.status === 'completed') report.completedAfterCancel++;
    // Outputs live in prototype-free maps: compare them as JSON.
    const own = JSON.stringify(result.outputs['3']) === JSON.stringify(ownOutputs(index));
    const problems = [
      record === undefined && 'the server has no such job',
      record !== undefined && record.status !== result.status && `the server says ${record.status}`,
      kind === 'fail' && result.status !== 'failed' && 'a failing run',
      result.status === 'completed' && !own && 'not its own outputs',
      asked !== (result.cancelRequested === true) && (asked ? 'no cancelRequested' : 'cancelRequested, though never cancelled'),
    ].filter(Boolean);
    if (problems.length === 0) report.correct++;
    else {
      report.wrong++;
      if (report.wrongSamples.length < 5) report.wrongSamples.push(`job ${index} (${kind}; ${problems.join(', ')}): ${inspect({ ...result, nodeErrors: undefined }, { depth: 6, breakLength: Infinity })}`);
    }
  }
}

/** Jobs the simulator ran more than once for the same prefix (a job's prefix is its identity). */
function countDuplicates(sim: Simulator): number {
  const byPrefix = new Map<string, number>();
  for (const job of sim.state.jobs()) {
    const images = (job.outputs['3'] as { images?: { filename?: string }[] } | undefined)?.images ?? [];
    const prefix = images[0]?.filename?.replace(/_\d+_\.png$/, '') ?? `(no output: ${job.id})`;
    byPrefix.set(prefix, (byPrefix.get(prefix) ?? 0) + 1);
  }
  return [...byPrefix.values()].reduce((sum, count) => sum + count - 1, 0);
}

/** The table the README shows. */
export function formatTable(report: ChaosReport): string {
  const f = report.faults;
  const rows: [string, string][] = [
    ['correct results (the job\'s status, its own outputs)', `${report.correct} of ${report.jobs}`],
    ['hangs', String(report.hangs)],
    ['duplicate submissions', String(report.duplicateSubmissions)],
    ['unhandled rejections', String(report.unhandledRejections)],
    ['credentials found', String(report.credentialsFound)],
    ['failed (SDK error) / wrong results / not SDK errors', `${report.failed} / ${report.wrong} / ${report.foreignErrors}`],
    ['submissions sent again (certainly not started)', String(report.resubmitted)],
    ['end learned from the socket / by polling', `${report.viaSocket} / ${report.viaPoll}`],
    ...(report.profile === 'intense'
      ? ([
          ['runs that lost their end messages / failing runs', `${report.endsDropped} / ${report.failing}`],
          ['cancels accepted / of them completed all the same', `${report.cancelsAccepted} / ${report.completedAfterCancel}`],
        ] as [string, string][])
      : []),
    ['socket drops / refused upgrades', `${f.socketDrops} / ${f.refusedUpgrades}`],
    ['restarts / requests answered 503 by them', `${f.restarts} / ${f.restartRefusals}`],
    ['status bodies stalled / 5xx answers', `${f.stalledBodies} / ${f.serverErrors}`],
    ['time', `${(report.durationMs / 1000).toFixed(1)} s`],
  ];
  const head = `chaos (${report.profile}, ${report.runtime} runtime): ${report.jobs} jobs, ${report.concurrency} at a time, seed ${report.seed}`;
  const width = Math.max(...rows.map(([name]) => name.length));
  const lines = rows.map(([name, value]) => `| ${name.padEnd(width)} | ${value} |`);
  const failures = [...Object.entries(report.failures).map(([key, count]) => `  ${count} × ${key}`), ...report.wrongSamples.map((line) => `  ${line}`)];
  return [head, '', `| ${'measure'.padEnd(width)} | count |`, `|${'-'.repeat(width + 2)}|-------|`, ...lines, ...(failures.length ? ['', 'failures and wrong results:', ...failures] : [])].join('\n');
}
