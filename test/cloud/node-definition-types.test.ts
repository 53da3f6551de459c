import { describe, expect, expectTypeOf, it } from 'vitest';
import type * as z from 'zod/mini';
import { InputOptionsSchema, InputSpecSchema, NodeDefinitionSchema, ObjectInfoSchema } from '../../src/cloud/workflow/node-definitions.js';
import type { InputOptions, InputSpec, NodeDefinition, ObjectInfo } from '../../src/cloud/workflow/validate.js';

// The public types are written out for readers (and the API reference); the schemas that check
// the server's answers must yield exactly these types, so neither can drift from the other.
describe('node definition types', () => {
  it('are exactly what the schemas that read GET /api/object_info yield', () => {
    expectTypeOf<z.infer<typeof InputOptionsSchema>>().toEqualTypeOf<InputOptions>();
    expectTypeOf<z.infer<typeof InputSpecSchema>>().toEqualTypeOf<InputSpec>();
    expectTypeOf<z.infer<typeof NodeDefinitionSchema>>().toEqualTypeOf<NodeDefinition>();
    expectTypeOf<z.infer<typeof ObjectInfoSchema>>().toEqualTypeOf<ObjectInfo>();
  });

  it('keep the fields a server adds', () => {
    const info: ObjectInfo = ObjectInfoSchema.parse({ KSampler: { input: { required: { seed: ['INT', { min: 0, control_after_generate: true }] } }, python_module: 'nodes' } });
    expect(info.KSampler?.python_module).toBe('nodes');
    expect(info.KSampler?.input.required?.seed?.[1]?.control_after_generate).toBe(true);
  });
});
