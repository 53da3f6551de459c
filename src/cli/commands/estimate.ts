import type { CloudClient } from '../../index.js';
import { createCloud } from '../base/clients.js';
import type { CommandContext, CommandSpec } from '../base/command.js';
import { EXIT, type ExitCode } from '../base/exit-codes.js';
import { readJsonFile } from '../base/files.js';
import { formatUsdRange } from '../base/money.js';
import { parseAssignment } from '../base/values.js';
import { applySets, loadWorkflow } from '../base/workflow-input.js';
import { estimateBatch } from './batch/cost.js';
import { readSets } from './batch/sets.js';

type Estimate = Awaited<ReturnType<CloudClient['estimateCost']>>;
type Range = { min: number; max: number };

/**
 * `graphcloud estimate <workflow.json>`: what a workflow (or a batch of input sets) would cost,
 * from the price badges of the server's node catalog.
 *
 * @example
 * ```ts
 * await runCli(root, ['estimate', 'video.json', '--set', 'Video.duration=10'], io);
 * ```
 */
export const estimateCommand: CommandSpec = {
  name: 'estimate',
  summary: 'What a workflow (or a batch of input sets) would cost, before sending it',
  description:
    'Estimate what a saved workflow would cost: each partner-API node priced by the badge of the server\'s\n' +
    'node catalog (as the web UI shows it), and the total, a range in US dollars and in credits.\n' +
    'With --inputs, the total of every set of a .jsonl or .csv file (as `batch` takes it). Nothing is\n' +
    'sent. A partner node without a price (no badge, a rate per second or per token, an expression that\n' +
    'fails) is listed apart: the total does not count it.\n\n' +
    'Piped (or with --json): one `estimate` object (per set with --inputs), then with --inputs a `total`.',
  args: '<workflow.json>',
  positionals: [1, 1],
  service: 'cloud',
  options: {
    set: { type: 'string', multiple: true, value: '<address=value>', description: "Set an input: 'Video.duration=10' (repeatable)" },
    inputs: { type: 'string', value: '<file>', description: 'The input sets of a batch: a .jsonl or .csv file; prints their total' },
  },
  examples: ['graphcloud estimate video.json', "graphcloud estimate video.json --set 'Video.duration=10'", "graphcloud estimate video.json --inputs sweep.csv --json | jq .usd"],
  run: estimateWorkflowCommand,
};

async function estimateWorkflowCommand(ctx: CommandContext): Promise<ExitCode> {
  const { options, out } = ctx;
  const help = `${ctx.path} --help`;
  const file = ctx.positionals[0]!;
  const sets = ((options.set as string[] | undefined) ?? []).map((text) => parseAssignment(text, '--set', help));
  const raw = await readJsonFile(file, help);
  await using cloud = createCloud(ctx);
  const signal = ctx.interrupts.signal;
  const info = await cloud.nodes.list({ signal });
  const workflow = applySets(await loadWorkflow(raw, file, () => Promise.resolve(info), help), sets, info, help);
  if (typeof options.inputs !== 'string') {
    const estimate = await cloud.estimateCost(workflow, { signal });
    out.json({ type: 'estimate', ...estimate });
    printNodes(ctx, estimate);
    out.human(`${out.style('bold', 'Total')}: ${formatUsdRange(estimate.usd)} (${credits(estimate.credits)})`);
    return EXIT.ok;
  }
  const batch = await readSets(options.inputs, workflow, info, help);
  const total = await estimateBatch(cloud, workflow, batch, signal);
  for (const { set, estimate } of total.sets) out.json({ type: 'estimate', set: set.index, line: set.line, ...estimate });
  out.json({ type: 'total', sets: batch.length, usd: total.usd, credits: total.credits, unpriced: total.unpriced });
  const first = total.sets[0];
  if (first) printNodes(ctx, first.estimate, batch.length > 1 ? ' (set 1)' : '');
  out.human(`${out.style('bold', `Total of ${batch.length} set${batch.length === 1 ? '' : 's'}`)}: ${formatUsdRange(total.usd)} (${credits(total.credits)})`);
  const elsewhere = total.unpriced.filter((node) => node.set !== first?.set.index);
  if (elsewhere.length > 0) out.human(`  ${elsewhere.length} partner node${elsewhere.length === 1 ? '' : 's'} of other sets without a price (not counted): see --json.`);
  return EXIT.ok;
}

/** Each priced node, then the unpriced ones. */
function printNodes(ctx: CommandContext, estimate: Estimate, of = ''): void {
  const { out } = ctx;
  if (estimate.nodes.length === 0 && estimate.unpriced.length === 0) out.human(`No partner-API node${of}: nothing to pay beyond the run itself.`);
  for (const node of estimate.nodes) out.human(`  node ${node.id}${of} ${node.title && node.title !== node.classType ? `"${node.title}" ` : ''}(${node.classType}): ${formatUsdRange(node.usd)}`);
  for (const node of estimate.unpriced) out.human(`  ${out.style('yellow', '⚠')} node ${node.id}${of} (${node.classType}): no price, not counted: ${node.reason}`);
}

function credits(range: Range): string {
  const format = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 2 });
  return range.min === range.max ? `${format(range.max)} credits` : `${format(range.min)} to ${format(range.max)} credits`;
}
