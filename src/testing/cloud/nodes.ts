/**
 * One input definition of object_info: `[type, options]` or `[[choices], options]`.
 *
 * @example
 * const width: InputSpec = ['INT', { default: 512, min: 0, max: 16384, step: 1 }];
 */
export type InputSpec = [string | string[], Record<string, unknown>];

/**
 * One node type as `GET /api/object_info` describes it.
 *
 * @example
 * const def: NodeDefinition = nodeDefinitions([])['SaveImage']!;
 */
export interface NodeDefinition {
  input: {
    required: Record<string, InputSpec>;
    optional?: Record<string, InputSpec>;
    /** A name (`"PROMPT"`), or on newer node packs a list holding it (`["PROMPT"]`). */
    hidden?: Record<string, string | string[]>;
  };
  input_order: { required: string[]; optional?: string[] };
  output: string[];
  /** `[null]` on the dataset text nodes of ComfyUI 0.3.77 (the simulator's `TruncateText`). */
  output_is_list: Array<boolean | null>;
  output_name: string[];
  name: string;
  /** `null` on about 190 nodes of a real local runtime (ComfyUI 0.3.77). */
  display_name: string | null;
  description: string;
  python_module: string;
  category: string;
  output_node: boolean;
  api_node?: boolean;
  /** Fields some versions or node packs add (`output_tooltips`, `output_matchtypes`...). */
  [field: string]: unknown;
  deprecated: boolean;
  experimental: boolean;
}

/**
 * The partner node: calls the simulator's own proxy upscaler with `extra_data.api_key_platform_org`.
 *
 * @example
 * prompt['4'] = { class_type: PARTNER_NODE, inputs: { image: ['1', 0], scale_factor: '2x' } };
 */
export const PARTNER_NODE = 'UpscaleViaProxy';

interface Draft {
  display: string;
  category: string;
  description: string;
  required: Record<string, InputSpec>;
  optional?: Record<string, InputSpec>;
  hidden?: Record<string, string | string[]>;
  output?: string[];
  outputNode?: boolean;
  apiNode?: boolean;
  module?: string;
}

function define(name: string, draft: Draft): NodeDefinition {
  const output = draft.output ?? [];
  const definition: NodeDefinition = {
    input: { required: draft.required },
    input_order: { required: Object.keys(draft.required) },
    output,
    output_is_list: output.map(() => false),
    output_name: [...output],
    name,
    display_name: draft.display,
    description: draft.description,
    python_module: draft.module ?? 'nodes',
    category: draft.category,
    output_node: draft.outputNode ?? false,
    deprecated: false,
    experimental: false,
  };
  if (draft.optional) {
    definition.input.optional = draft.optional;
    definition.input_order.optional = Object.keys(draft.optional);
  }
  if (draft.hidden) definition.input.hidden = draft.hidden;
  if (draft.apiNode) definition.api_node = true;
  return definition;
}

/**
 * A definition shaped like the text dataset nodes of a real local runtime (ComfyUI 0.3.77):
 * `output_is_list: [null]`, `display_name: null`, a hidden input as a list, an input kind of the
 * newer node schema with options of its own, a limit beyond 2^53 and fields other versions lack.
 * The simulator never runs it (no output node depends on it); clients must read the catalog.
 */
function truncateText(): NodeDefinition {
  const definition = define('TruncateText', {
    display: '',
    category: 'dataset/text',
    description: 'Truncates a text to a maximum length.',
    required: {
      text: ['STRING', { multiline: true, default: '' }],
      max_length: ['INT', { default: 77, min: 1, max: 10000 }],
    },
    optional: {
      seed: ['INT', { default: 0, min: 0, max: 2 ** 64 /* 18446744073709551615 as JSON parses to this */, control_after_generate: true }],
      mode: ['COMFY_DYNAMICCOMBO_V3', { options: [{ key: 'start', inputs: { required: {} } }, { key: 'end', inputs: { required: { ellipsis: ['STRING', {}] } } }] }],
    },
    hidden: { unique_id: ['UNIQUE_ID'] },
    output: ['STRING'],
    module: 'comfy_extras.nodes_dataset',
  });
  return { ...definition, display_name: null, output_is_list: [null], output_tooltips: [null], output_matchtypes: null, api_node: false };
}

const SCALE_METHODS = ['nearest-exact', 'bilinear', 'area', 'bicubic', 'lanczos'];

/**
 * The node set of the simulator, with `LoadImage` listing the uploaded input names.
 *
 * @example
 * Object.keys(nodeDefinitions(['cat.png'])); // ['LoadImage', 'ImageScale', ...]
 */
export function nodeDefinitions(uploadedNames: string[]): Record<string, NodeDefinition> {
  const image: InputSpec = ['IMAGE', {}];
  return {
    LoadImage: define('LoadImage', {
      display: 'Load Image',
      category: 'image',
      description: 'Loads an uploaded input image.',
      required: { image: [[...uploadedNames].sort(), { image_upload: true }] },
      output: ['IMAGE', 'MASK'],
    }),
    ImageScale: define('ImageScale', {
      display: 'Upscale Image',
      category: 'image/upscaling',
      description: 'Resizes an image to a width and height (0 keeps the aspect ratio).',
      required: {
        image,
        upscale_method: [SCALE_METHODS, {}],
        width: ['INT', { default: 512, min: 0, max: 16384, step: 1 }],
        height: ['INT', { default: 512, min: 0, max: 16384, step: 1 }],
        crop: [['disabled', 'center'], {}],
      },
      output: ['IMAGE'],
    }),
    ImageScaleBy: define('ImageScaleBy', {
      display: 'Upscale Image By',
      category: 'image/upscaling',
      description: 'Resizes an image by a factor.',
      required: {
        image,
        upscale_method: [SCALE_METHODS, {}],
        scale_by: ['FLOAT', { default: 1, min: 0.01, max: 8, step: 0.01 }],
      },
      output: ['IMAGE'],
    }),
    ImageInvert: define('ImageInvert', {
      display: 'Invert Image',
      category: 'image',
      description: 'Inverts the colours of an image.',
      required: { image },
      output: ['IMAGE'],
    }),
    SaveImage: define('SaveImage', {
      display: 'Save Image',
      category: 'image',
      description: 'Saves the input images to the output folder.',
      required: {
        images: image,
        filename_prefix: ['STRING', { default: 'ComfyUI', tooltip: 'Prefix of the file name; may hold a subfolder.' }],
      },
      hidden: { prompt: 'PROMPT', extra_pnginfo: 'EXTRA_PNGINFO' },
      outputNode: true,
    }),
    PreviewImage: define('PreviewImage', {
      display: 'Preview Image',
      category: 'image',
      description: 'Saves the input images to the temp folder.',
      required: { images: image },
      hidden: { prompt: 'PROMPT', extra_pnginfo: 'EXTRA_PNGINFO' },
      outputNode: true,
    }),
    [PARTNER_NODE]: define(PARTNER_NODE, {
      display: 'Upscale (Image Vendor)',
      category: 'api node/image/Image Vendor',
      description: 'Upscales through the media proxy; needs extra_data.api_key_platform_org.',
      required: { image, scale_factor: [['2x', '4x'], {}] },
      optional: { prompt: ['STRING', { multiline: true, default: '' }] },
      hidden: { auth_token_platform_org: 'AUTH_TOKEN_PLATFORM_ORG', api_key_platform_org: 'API_KEY_PLATFORM_ORG' },
      output: ['IMAGE'],
      apiNode: true,
      module: 'nodes_api.image_vendor',
    }),
    FailNode: define('FailNode', {
      display: 'Fail (simulator)',
      category: 'testing',
      description: 'Raises an error when executed, failing the run with execution_error.',
      required: { message: ['STRING', { default: 'Simulated failure' }] },
      optional: { image },
      output: ['IMAGE'],
      module: 'custom_nodes.simulator',
    }),
    TruncateText: truncateText(),
    BlockExecution: define('BlockExecution', {
      display: 'Block Execution (simulator)',
      category: 'testing',
      description: 'Blocks its output: the consuming node reports a non-terminal ExecutionBlocked error and is skipped.',
      required: { image, message: ['STRING', { default: 'Blocked by the simulator' }] },
      output: ['IMAGE'],
      module: 'custom_nodes.simulator',
    }),
  };
}
