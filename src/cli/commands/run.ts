import { isUiWorkflow, JobFailedError, listOutputFiles, type CloudClient, type JobResult, type Workflow } from '../../index.js';
import { createCloud } from '../base/clients.js';
import type { CommandContext, CommandSpec } from '../base/command.js';
import { usageError } from '../base/errors.js';
import { EXIT, type ExitCode } from '../base/exit-codes.js';
import { formatSpent } from '../base/money.js';
import { RunReporter } from '../live/run-reporter.js';
import { followJob, queuePositionOf } from '../live/follow.js';
import { saveJobOutputs } from '../base/outputs.js';
import { applySets, inputsOf, loadWorkflow, readWorkflowFlags } from '../base/workflow-input.js';

/**
 * `graphcloud run <workflow.json>`: runs a saved workflow with live progress, and saves its
 * outputs.
 *
 * @example
 * ```ts
 * await runCli(root, ['run', 'portrait.json', '--set', 'KSampler.seed=42', '--out', './out'], io);
 * ```
 */
export const runCommand: CommandSpec = {
  name: 'run',
  summary: 'Run a saved workflow with live progress, and save its outputs',
  description:
    'Run a saved workflow (the web UI\'s format, or the API format) and wait for its result. On a terminal\n' +
    'a live display shows the' +
    ' overall and per-node progress, the node running, the queue position and the time; piped\n' +
    '(or with --json) it prints one JSON object per line: the events, then the result.\n\n' +
    'An input address is <node>.<input>: the node by id, title, or a class type only one node has.\n' +
    'A --set value takes the type of the value it replaces; key:=<json> sets JSON.\n\n' +
    'The workflow is checked against the server\'s node definitions first: a mistake costs nothing.\n' +
    'Ctrl-C asks the server to cancel the job and waits for it; a second Ctrl-C leaves at once (the job id\n' +
    'is printed, and `graphcloud jobs watch <id>` picks it up again).',
  args: '<workflow.json>',
  positionals: [1, 1],
  service: 'cloud',
  options: {
    set: { type: 'string', multiple: true, value: '<address=value>', description: "Set an input: 'KSampler.seed=42', 'Positive.text=a fox' (repeatable)" },
    upload: { type: 'string', multiple: true, value: '<address=path>', description: "Upload a file into an input: 'Load Image.image=./in.png' (repeatable)" },
    out: { type: 'string', value: '<dir>', description: 'Save the output files in <dir> (never over an existing file)' },
    overwrite: { type: 'boolean', description: 'With --out: replace files of the same name' },
    timeout: { type: 'string', value: '<duration>', description: 'Give up after this long, cancelling the job: 90s, 10m, 1h, none (default 1h)' },
    validate: { type: 'boolean', description: 'Only check the workflow against the node definitions; run nothing' },
    'skip-validation': { type: 'boolean', description: 'Send the workflow without checking it first' },
    'partner-key': { type: 'boolean', description: 'Send your API key for partner nodes (extra_data.api_key_platform_org)' },
    'max-cost': { type: 'string', value: '<usd>', description: "Refuse to send the run when its estimate could cost more: 0.50, 12 (see `graphcloud estimate`)" },
    'allow-unpriced': { type: 'boolean', description: 'With --max-cost: count partner nodes without a price as free instead of refusing' },
  },
  examples: [
    "graphcloud run portrait.json --set 'KSampler.seed=42' --upload 'Load Image.image=./me.png' --out ./out",
    "graphcloud run portrait.json --json | jq -c 'select(.type == \"progress\") | .data'",
    'graphcloud run portrait.json --validate',
  ],
  run: runWorkflowCommand,
};

async function runWorkflowCommand(ctx: CommandContext): Promise<ExitCode> {
  const { options } = ctx;
  const help = `${ctx.path} --help`;
  const file = ctx.positionals[0]!;
  if (options.validate && options['skip-validation']) throw usageError('--validate and --skip-validation contradict each other.', help);
  const { raw, sets, uploads, waitTimeout, maxCost } = await readWorkflowFlags(ctx, file, help);
  await using cloud = createCloud(ctx);
  const signal = ctx.interrupts.signal;
  // The definitions are read once (they also serve the check before sending): to convert a UI
  // workflow, and to find and type the inputs --set and --upload name.
  let info: CloudClient.ObjectInfo | undefined;
  const definitions = async (): Promise<CloudClient.ObjectInfo> => (info ??= await cloud.nodes.list({ signal }));
  if (isUiWorkflow(raw) || sets.length > 0 || uploads.length > 0) await definitions();
  const workflow = applySets(await loadWorkflow(raw, file, definitions, help), sets, info, help);
  const uploadMap = Object.fromEntries(uploads.map((u) => [u.key, u.value]));

  // `return await`: the client must stay open until the check is done (`await using` closes it on return).
  if (options.validate) return await validateOnly(ctx, cloud, workflow, inputsOf(workflow, Object.keys(uploadMap), info));

  const reporter = new RunReporter(ctx, workflow);
  if (uploads.length > 0) reporter.preparing(`checking the workflow, uploading ${uploads.length} file${uploads.length === 1 ? '' : 's'}`);
  const result = await followJob(
    ctx,
    reporter,
    (hooks) =>
      cloud.runWorkflow(workflow, {
        ...hooks,
        uploads: uploadMap,
        validate: options['skip-validation'] !== true,
        partnerApiKey: options['partner-key'] === true ? true : undefined,
        ...(maxCost === undefined ? {} : { maxCost: { usd: maxCost }, allowUnpriced: options['allow-unpriced'] === true }),
        // The CLI cancels a job nobody waits for itself, so that it can say whether it could.
        cancelOnAbort: false,
        ...(waitTimeout === undefined ? {} : { waitTimeout }),
      }),
    { cancel: (promptId) => cloud.jobs.cancel(promptId), queuePosition: (promptId, stop) => queuePositionOf(cloud, promptId, stop) },
  );
  if (result instanceof JobFailedError) return reportFailure(ctx, result, reporter.state.startedAt);
  return await reportSuccess(ctx, cloud, result, reporter.state.startedAt);
}

async function validateOnly(ctx: CommandContext, cloud: CloudClient, workflow: Workflow, uploaded: ReadonlySet<string>): Promise<ExitCode> {
  const { out } = ctx;
  // Inputs an --upload fills are present, whatever the workflow holds for them now.
  const issues = (await cloud.validateWorkflow(workflow, { signal: ctx.interrupts.signal })).filter((i) => !uploaded.has(`${i.nodeId}.${i.input ?? ''}`));
  out.json({ type: 'validation', valid: issues.length === 0, nodes: Object.keys(workflow).length, issues });
  if (issues.length === 0) {
    out.human(`${out.style('green', '✔')} The workflow is valid: ${Object.keys(workflow).length} nodes match the server's node definitions. Nothing was run.`);
    return EXIT.ok;
  }
  out.human(`${out.style('red', '✖')} ${issues.length} problem${issues.length === 1 ? '' : 's'} found; nothing was run:`);
  for (const issue of issues) out.human(`  - node ${issue.nodeId}${issue.input ? ` input ${issue.input}` : ''}: ${issue.message}`);
  return EXIT.usage;
}

async function reportSuccess(ctx: CommandContext, cloud: CloudClient, result: JobResult, startedAt: number): Promise<ExitCode> {
  const { out, options } = ctx;
  const elapsedMs = Date.now() - startedAt;
  const saved = typeof options.out === 'string' ? await saveJobOutputs(ctx, cloud, result, options.out) : [];
  const { files: _files, ...rest } = result;
  out.json({ type: 'result', ...rest, elapsedMs, saved });
  out.human(`${out.style('green', '✔')} ${out.style('bold', 'Completed')} job ${result.promptId} in ${(elapsedMs / 1000).toFixed(1)} s${result.cost ? `; spent ${formatSpent(result.cost)}` : ''}`);
  if (saved.length > 0) {
    out.human(`  Saved ${saved.length} file${saved.length === 1 ? '' : 's'}:`);
    for (const file of saved) out.human(`    ${file.path}`);
    return EXIT.ok;
  }
  const refs = listOutputFiles(result.outputs);
  if (refs.length === 0) out.human('  No output files.');
  else {
    out.human(`  ${refs.length} output file${refs.length === 1 ? '' : 's'} (pass --out <dir> to save them):`);
    for (const { nodeId, ref } of refs) out.human(`    node ${nodeId}: ${ref.subfolder ? `${ref.subfolder}/` : ''}${ref.filename}`);
  }
  if (!result.outputsComplete) out.notice(out.errorStyle('yellow', '  The server did not list every output (the end was learned by polling).'));
  return EXIT.ok;
}

function reportFailure(ctx: CommandContext, error: JobFailedError, startedAt: number): ExitCode {
  const { out } = ctx;
  const { result } = error;
  const cancelled = result.status === 'cancelled';
  out.json({ type: 'result', ...result, files: undefined, elapsedMs: Date.now() - startedAt });
  if (cancelled) {
    out.human(`${out.style('yellow', '■')} ${out.style('bold', 'Cancelled')} job ${result.promptId}.`);
    return EXIT.cancelled;
  }
  const where = result.error?.nodeId ? ` in ${result.error.nodeId ? `node ${result.error.nodeId}` : ''}${result.error.nodeType ? ` (${result.error.nodeType})` : ''}` : '';
  out.human(`${out.style('red', '✖')} ${out.style('bold', 'Failed')} job ${result.promptId}${where}: ${result.error?.message ?? 'no reason given'}`);
  if (result.cost) out.human(`  It spent ${formatSpent(result.cost)} before it failed.`);
  const done = Object.keys(result.outputs).length;
  if (done > 0) out.human(`  ${done} node${done === 1 ? '' : 's'} had produced outputs before the failure (they are in the JSON result).`);
  return EXIT.failed;
}
