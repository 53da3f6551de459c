// Partner-API nodes with price badges of every kind (docs/simulator.md#priced-partner-nodes), for
// budget code to be tested offline. Each is one table entry: its definition (with `api_node` and a
// `price_badge` as real catalogs carry them, docs/wire-protocol.md) and what a run of it charges,
// worked out here in plain code, apart from the badge, so a test can compare the two. While one
// runs it sends the text frames a real server sends: `Status: ...` and `Price: N credits` lines.
import { placeholderImage, type ImageValue } from './images.js';
import type { InputSpec, NodeDefinition } from './nodes.js';

/** Credits per US dollar the simulated server charges at (as the real one does for a badge price). */
export const CREDITS_PER_USD = 211;

interface PricedNode {
  display: string;
  required?: Record<string, InputSpec>;
  optional?: Record<string, InputSpec>;
  dependsOn: { widgets?: Array<{ name: string; type: string }>; inputs?: string[]; input_groups?: string[] };
  expr: string;
  /** The US dollars one run charges, from the node's inputs (a link is an object value by then). */
  charge: (inputs: Record<string, unknown>) => number;
}

const linked = (value: unknown) => typeof value === 'object' && value !== null;
const lower = (value: unknown) => String(value ?? '').trim().toLowerCase();
const image: InputSpec = ['IMAGE', {}];

/** The priced partner nodes, by class type. */
export const PRICED_NODES: Readonly<Record<string, PricedNode>> = Object.freeze({
  SimPricedFixed: {
    display: 'Priced Image (fixed, simulator)',
    required: { prompt: ['STRING', { multiline: true, default: '' }] },
    dependsOn: {},
    expr: '{"type":"usd","usd":0.04}',
    charge: () => 0.04,
  },
  SimPricedRange: {
    display: 'Priced Image (range, simulator)',
    required: { prompt: ['STRING', { multiline: true, default: '' }] },
    dependsOn: {},
    expr: '{"type":"range_usd","min_usd":0.1,"max_usd":0.3,"format":{"approximate":true}}',
    // Somewhere in the range: what the partner's answer would say.
    charge: () => 0.2,
  },
  SimPricedList: {
    display: 'Priced Image (list, simulator)',
    required: { prompt: ['STRING', { multiline: true, default: '' }] },
    dependsOn: {},
    expr: '{"type":"list_usd","usd":[0.05,0.1,0.2]}',
    charge: () => 0.1,
  },
  SimPricedText: {
    display: 'Priced Chat (text, simulator)',
    required: { prompt: ['STRING', { multiline: true, default: '' }] },
    dependsOn: {},
    expr: '{"type":"text","text":"Token-based"}',
    // The badge cannot say; the run still charges (the partner's answer header).
    charge: () => 0.01,
  },
  SimPricedRate: {
    display: 'Priced Audio (rate, simulator)',
    required: { seconds: ['INT', { default: 5, min: 1, max: 60 }] },
    dependsOn: { widgets: [{ name: 'seconds', type: 'INT' }] },
    expr: '{"type":"usd","usd":0.05,"format":{"suffix":"/second"}}',
    charge: (inputs) => 0.05 * Number(inputs.seconds ?? 5),
  },
  SimPricedVideo: {
    display: 'Priced Video (widgets, simulator)',
    required: {
      duration: ['INT', { default: 5, min: 1, max: 10 }],
      resolution: ['COMBO', { options: ['480p', '720p', '1080P'], default: '720p' }],
      generate_audio: ['BOOLEAN', { default: false }],
    },
    dependsOn: { widgets: [{ name: 'duration', type: 'INT' }, { name: 'resolution', type: 'COMBO' }, { name: 'generate_audio', type: 'BOOLEAN' }] },
    expr: '($rate := widgets.resolution = "1080p" ? 0.15 : widgets.resolution = "720p" ? 0.1 : 0.05; {"type":"usd","usd": $rate * widgets.duration * (widgets.generate_audio ? 1.5 : 1)})',
    charge: (inputs) => {
      const resolution = lower(inputs.resolution ?? '720p');
      const rate = resolution === '1080p' ? 0.15 : resolution === '720p' ? 0.1 : 0.05;
      return rate * Number(inputs.duration ?? 5) * (inputs.generate_audio === true ? 1.5 : 1);
    },
  },
  SimPricedModelVideo: {
    display: 'Priced Video (dynamic combo, simulator)',
    required: {
      model: [
        'COMFY_DYNAMICCOMBO_V3',
        {
          options: [
            { key: 'Sim-Fast', inputs: { required: { duration: ['INT', { default: 4, min: 2, max: 8 }] } } },
            { key: 'Sim-Pro', inputs: { required: { duration: ['INT', { default: 5, min: 2, max: 10 }], resolution: ['COMBO', { options: ['720p', '1080p'] }] } } },
          ],
        },
      ],
    },
    dependsOn: { widgets: [{ name: 'model', type: 'COMFY_DYNAMICCOMBO_V3' }, { name: 'model.duration', type: 'INT' }, { name: 'model.resolution', type: 'COMBO' }] },
    expr: '($d := $lookup(widgets, "model.duration"); $res := $lookup(widgets, "model.resolution"); {"type":"usd","usd": widgets.model = "sim-pro" ? ($res = "1080p" ? 0.2 : 0.12) * $d : 0.05 * $d})',
    charge: (inputs) => {
      const pro = lower(inputs.model ?? 'Sim-Fast') === 'sim-pro';
      const duration = Number(inputs['model.duration'] ?? (pro ? 5 : 4));
      return pro ? (lower(inputs['model.resolution'] ?? '720p') === '1080p' ? 0.2 : 0.12) * duration : 0.05 * duration;
    },
  },
  SimPricedEdit: {
    display: 'Priced Image Edit (connected input, simulator)',
    required: { prompt: ['STRING', { multiline: true, default: '' }] },
    optional: { image },
    dependsOn: { inputs: ['image'] },
    expr: 'inputs.image.connected ? {"type":"usd","usd":0.08} : {"type":"usd","usd":0.03}',
    charge: (inputs) => (linked(inputs.image) ? 0.08 : 0.03),
  },
  SimPricedMulti: {
    display: 'Priced Image (input group, simulator)',
    required: { prompt: ['STRING', { multiline: true, default: '' }] },
    optional: { images: ['COMFY_AUTOGROW_V3', { template: { input: { required: { image } }, prefix: 'image', min: 0, max: 4 } }] },
    dependsOn: { input_groups: ['images'] },
    expr: '{"type":"usd","usd": 0.02 + 0.01 * inputGroups.images}',
    charge: (inputs) => 0.02 + 0.01 * Object.keys(inputs).filter((name) => name.startsWith('images.') && linked(inputs[name])).length,
  },
} satisfies Record<string, PricedNode>);

/**
 * The priced nodes' definitions, for the simulator's `object_info`.
 *
 * @example
 * const defs = { ...nodeDefinitions(names), ...pricedDefinitions() };
 */
export function pricedDefinitions(): Record<string, NodeDefinition> {
  const defs: Record<string, NodeDefinition> = {};
  for (const [name, node] of Object.entries(PRICED_NODES)) {
    const required = node.required ?? {};
    defs[name] = {
      input: { required, ...(node.optional ? { optional: node.optional } : {}), hidden: { auth_token_platform_org: 'AUTH_TOKEN_PLATFORM_ORG', api_key_platform_org: 'API_KEY_PLATFORM_ORG' } },
      input_order: { required: Object.keys(required), ...(node.optional ? { optional: Object.keys(node.optional) } : {}) },
      output: ['IMAGE'],
      output_is_list: [false],
      output_name: ['IMAGE'],
      name,
      display_name: node.display,
      description: 'A partner-API node of the simulator: its badge prices it, and it sends the Price text a real server sends.',
      python_module: 'comfy_api_nodes.simulator',
      category: 'api node/simulator',
      output_node: false,
      deprecated: false,
      experimental: false,
      api_node: true,
      price_badge: { engine: 'jsonata', depends_on: { widgets: [], inputs: [], input_groups: [], ...node.dependsOn }, expr: node.expr },
    };
  }
  return defs;
}

/**
 * Runs a priced node: sends its status and price as text frames (`Price: N credits`, repeated as
 * a real server repeats it), and passes its image through (or a placeholder).
 *
 * @example
 * const value = await runPricedNode('SimPricedFixed', inputs, env.onText);
 */
export async function runPricedNode(classType: string, inputs: Record<string, unknown>, onText: (text: string) => Promise<void>): Promise<ImageValue> {
  const node = PRICED_NODES[classType]!;
  const credits = formatCredits(node.charge(inputs) * CREDITS_PER_USD);
  await onText(`Status: In progress\nPrice: ${credits} credits`);
  await onText(`Status: Completed\nPrice: ${credits} credits`);
  const source = inputs.image ?? Object.entries(inputs).find(([name, value]) => name.startsWith('images.') && linked(value))?.[1];
  return (source as ImageValue | undefined)?.kind === 'image' ? (source as ImageValue) : placeholderImage(64, 64, classType);
}

/** `1,234.5`: thousands separators and at most two decimals, as the server writes credits. */
export function formatCredits(credits: number): string {
  return credits.toLocaleString('en-US', { maximumFractionDigits: 2 });
}
