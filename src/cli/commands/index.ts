import type { CommandSpec } from '../base/command.js';
import { batchCommand } from './batch/index.js';
import { estimateCommand } from './estimate.js';
import { jobsCommand } from './jobs.js';
import { registryCommand } from './registry.js';
import { runCommand } from './run.js';
import { simCommand } from './sim.js';
import { taskCommand } from './task.js';
import { typesCommand } from './types.js';
import { uploadCommand } from './upload.js';
import { workerCommand } from './worker.js';

/**
 * Every command of `graphcloud`, as one tree: help, parsing and dispatch read it.
 *
 * @example
 * ```ts
 * ROOT.subcommands?.map((c) => c.name); // ['run', 'batch', 'estimate', 'jobs', 'upload', 'types', 'task', 'registry', 'sim', 'worker']
 * ```
 */
export const ROOT: CommandSpec = {
  name: 'graphcloud',
  summary: 'The graphcloud command line',
  description: 'graphcloud: run workflows on the cloud, media tasks on the proxy, and nodes from the registry.',
  subcommands: [runCommand, batchCommand, estimateCommand, jobsCommand, uploadCommand, typesCommand, taskCommand, registryCommand, simCommand, workerCommand],
  examples: [
    'graphcloud sim                                   # a local simulator to try everything on',
    "graphcloud run portrait.json --set 'KSampler.seed=42' --out ./out",
    'graphcloud batch portrait.json --inputs sweep.csv --out ./out',
    'graphcloud task upscale --param image=@./small.png --param scale_factor=4x --wait --out ./out',
    'graphcloud types --url http://127.0.0.1:8188 --out src/nodes.ts',
    'graphcloud registry nodes search upscale',
  ],
};
