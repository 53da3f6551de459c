// The queue's fault run (`npm run chaos -- queue`): runs through 4 RunWorker processes on a real
// redis-server while two of the workers are killed (SIGKILL) and started again and Redis restarts
// once (append-only file on). It counts what a user would: every run ended once, completed, with
// its own outputs, and the simulator saw one submission per run.
import { CloudClient, type JobResult, type Workflow } from '../../src/index.js';
import { RunQueue } from '../../src/queue/index.js';
import { startSimulator } from '../../src/testing/index.js';
import { startRedis } from '../queue/redis-server.js';
import { killWorkers, startWorker, type WorkerProcess } from '../queue/workers.js';
import { PHOTO } from '../queue/setup.js';

/** What the fault run saw. */
export interface QueueChaosReport {
  runs: number;
  seconds: number;
  completed: number;
  /** Ended failed, cancelled or unknown. */
  notCompleted: number;
  /** Completed with outputs that are not its own (another run's prefix), or none. */
  wrongOutputs: number;
  /** `POST /api/prompt` the simulator received. */
  submissions: number;
  /** Runs whose prefix the simulator ran more than once. */
  duplicateSubmissions: number;
  /** Runs a worker took over from another (killed) one. */
  takeovers: number;
  workerKills: number;
  redisRestarts: number;
  notes: string[];
}

const WORKERS = 4;

/** Runs the fault run: `runs` runs, faults at a fifth, a third and a half of them done. */
export async function runQueueChaos({ runs }: { runs: number }): Promise<QueueChaosReport> {
  const redis = await startRedis();
  const sim = await startSimulator({ stepDelayMs: 2, progressSteps: 2, accountConcurrency: 16 });
  const name = `chaos-${globalThis.crypto.randomUUID().slice(0, 8)}`;
  const cloud = { baseUrl: sim.cloudUrl, apiKey: sim.apiKey };
  const queue = new RunQueue({ connection: redis.url, name, cloud });
  const env = { GC_REDIS_URL: redis.url, GC_QUEUE: name, GC_CLOUD_URL: sim.cloudUrl, GC_API_KEY: sim.apiKey, GC_CONCURRENCY: '8', GC_LOCK_MS: '1500', GC_STALLED_MS: '500' };
  const notes: string[] = [];
  const started = performance.now();
  try {
    const workers: WorkerProcess[] = await Promise.all(Array.from({ length: WORKERS }, () => startWorker(env)));
    // One upload, then every run its own prefix: its outputs name it.
    const ids = Array.from({ length: runs }, (_, i) => `run-${i}`);
    const workflow: Workflow = {
      '1': { class_type: 'LoadImage', inputs: { image: 'placeholder.png' } },
      '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'x' } },
    };
    const uploader = new CloudClient(cloud);
    const { name: image } = await uploader.files.upload(PHOTO, { filename: 'chaos.png' });
    await uploader.close();
    workflow['1']!.inputs.image = image;
    let next = 0;
    await Promise.all(Array.from({ length: 32 }, async () => {
      while (next < runs) {
        const i = next++;
        await queue.add({ workflow, inputs: { '2.filename_prefix': `c${i}` } }, { id: ids[i] });
      }
    }));

    // The faults, as the runs complete: a worker killed and restarted at a fifth and at a half,
    // Redis restarted at a third.
    let workerKills = 0;
    let redisRestarts = 0;
    const faults: { at: number; act: () => Promise<void> }[] = [
      { at: 0.2, act: async () => replaceWorker(0) },
      { at: 0.33, act: async () => { await redis.restart(); redisRestarts += 1; } },
      { at: 0.5, act: async () => replaceWorker(1) },
    ];
    async function replaceWorker(index: number): Promise<void> {
      workers[index]!.child.kill('SIGKILL');
      await workers[index]!.exited;
      workerKills += 1;
      workers[index] = await startWorker(env);
    }
    let ended = 0;
    const deadline = Date.now() + Math.max(300_000, runs * 500);
    while (ended < runs) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const { counts } = await queue.status();
      ended = counts.completed + counts.failed;
      while (faults.length > 0 && ended >= faults[0]!.at * runs) await faults.shift()!.act();
      if (Date.now() > deadline) {
        notes.push(`gave up waiting: ${ended} of ${runs} ended`);
        break;
      }
    }

    // Every run, as the queue tells it, against the jobs the simulator ran: one job per prefix means
    // one submission per run, and a completed state with its own prefix means it ended once, right.
    const infos = await Promise.all(ids.map((id) => queue.get(id)));
    let completed = 0;
    let wrongOutputs = 0;
    let takeovers = 0;
    for (const [i, info] of infos.entries()) {
      takeovers += info?.takeovers ? 1 : 0;
      if (info?.state !== 'completed') {
        if (notes.length < 10) notes.push(`${ids[i]}: ${info?.state ?? 'missing'}${info?.error ? ` (${info.error.message})` : ''}`);
        continue;
      }
      completed += 1;
      const files = Object.values((info.result as JobResult).outputs).flatMap((output) => (output as { images?: { filename: string }[] }).images ?? []);
      if (files.length === 0 || !files.every((file) => file.filename.startsWith(`c${i}_`))) wrongOutputs += 1;
    }
    const perPrefix = new Map<string, number>();
    const jobOf = new Map<string, string>();
    for (const job of sim.state.jobs()) {
      const prefix = Object.values(job.outputs).flatMap((output) => (output as { images?: { filename: string }[] }).images ?? []).map((file) => /^(c\d+)_/.exec(file.filename)?.[1])[0] ?? `job ${job.id}`;
      perPrefix.set(prefix, (perPrefix.get(prefix) ?? 0) + 1);
      const seen = jobOf.get(prefix);
      jobOf.set(prefix, `${seen ? `${seen}; ` : ''}${job.id} ${job.status}${job.clientId ? ` client ${job.clientId.slice(0, 8)}` : ''}`);
    }
    for (const [prefix, count] of perPrefix) {
      if (count > 1 && notes.length < 30) {
        const info = infos[Number(prefix.slice(1))];
        notes.push(`${prefix} ran ${count} times: ${jobOf.get(prefix)}; the run: ${info?.state} ${info?.promptId ?? ''}, taken over ${info?.takeovers ?? 0}×`);
      }
    }
    // What the simulator knows of the runs that did not complete.
    for (const [i, info] of infos.entries()) {
      if (info?.state !== 'completed' && notes.length < 20) notes.push(`${ids[i]} on the simulator: ${jobOf.get(`c${i}`) ?? 'no job with its outputs'}${info?.promptId ? `; the run stored ${info.promptId}` : ''}`);
    }
    return {
      runs,
      seconds: (performance.now() - started) / 1000,
      completed,
      notCompleted: runs - completed,
      wrongOutputs,
      submissions: sim.state.requests.filter((r) => r.method === 'POST' && r.path === '/api/prompt' && !r.internal).length,
      duplicateSubmissions: [...perPrefix.values()].filter((n) => n > 1).length,
      takeovers,
      workerKills,
      redisRestarts,
      notes,
    };
  } finally {
    await killWorkers();
    await queue.close();
    await sim.close();
    await redis.stop();
  }
}

/** The report as the markdown table `npm run chaos -- queue` prints. */
export function formatQueueTable(report: QueueChaosReport): string {
  const rows: [string, string | number, string][] = [
    ['runs', report.runs, ''],
    ['completed, each with its own outputs', report.completed - report.wrongOutputs, `${report.runs}`],
    ['failed, cancelled or unknown', report.notCompleted, '0'],
    ['completed with outputs not its own', report.wrongOutputs, '0'],
    ['submissions the simulator received', report.submissions, `${report.runs}`],
    ['runs submitted more than once', report.duplicateSubmissions, '0'],
    ['workers killed (SIGKILL) and started again', report.workerKills, '2'],
    ['Redis restarts', report.redisRestarts, '1'],
    ['runs taken over from a killed worker', report.takeovers, ''],
    ['time', `${report.seconds.toFixed(1)} s`, ''],
  ];
  const lines = ['| | value | expected |', '|---|---|---|', ...rows.map(([label, value, expected]) => `| ${label} | ${value} | ${expected} |`)];
  if (report.notes.length > 0) lines.push('', ...report.notes.map((note) => `- ${note}`));
  return lines.join('\n');
}
