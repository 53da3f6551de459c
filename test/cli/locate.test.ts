// The CLI's `locate()` (src/cli/base/workflow-input.ts): where `--set`, `--upload` and a batch
// input key point. It once found the input by setting a marker object with setInputs() and
// searching the copy for it; it asks resolveAddress() now. The old probe is kept below as the
// oracle: on random workflows (ids, titles and class types drawn from one small pool, so they
// collide, with dots, escapes and `__proto__`), random node definitions (some unreadable) and
// random addresses, both give the same place or the same error, message and candidates alike.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { locate } from '../../src/cli/base/workflow-input.js';
import { readObjectInfo } from '../../src/cloud/workflow/node-definitions.js';
import type { ObjectInfo } from '../../src/cloud/workflow/validate.js';
import { setInputs, WorkflowAddressError, type Workflow } from '../../src/index.js';
import { params } from '../fuzz/helpers.js';

/** The marker probe `locate()` was until issue 33: the oracle. */
function markerLocate(workflow: Workflow, address: string, info: ObjectInfo | undefined): { nodeId: string; input: string } {
  const marker = {};
  const probe = setInputs(workflow, { [address]: marker }, info);
  for (const [nodeId, node] of Object.entries(probe)) {
    for (const [input, value] of Object.entries(node.inputs)) if (value === marker) return { nodeId, input };
  }
  throw new Error(`input address "${address}" was not placed`);
}

type Outcome = { place: { nodeId: string; input: string } } | { error: string; message: string; candidates: unknown };

function outcome(find: () => { nodeId: string; input: string }): Outcome {
  try {
    const { nodeId, input } = find();
    return { place: { nodeId, input } };
  } catch (error) {
    if (!(error instanceof WorkflowAddressError)) throw error;
    return { error: error.constructor.name, message: error.message, candidates: error.candidates };
  }
}

/** What kind of answer an outcome is, to check that the generator reaches every one. */
function kindOf(result: Outcome): string {
  if ('place' in result) return 'placed';
  const known = ['names no node', 'has no input "', 'an address is', 'no unescaped dot', 'no input name after', ' nodes'];
  return known.find((part) => result.message.includes(part)) ?? result.message;
}

// One pool for ids, titles, class types and input names: collisions between them are the point.
const NAMES = ['1', '2', '10', 'KSampler', 'Load Image', 'a', 'b', 'a.b', 'a.b.c', 'v1.2 prompt', 'a\\.b', 'x\\', '', ' ', '.', '__proto__', 'constructor', 'seed', 'text', 'image'];
const name = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...NAMES) }, { weight: 1, arbitrary: fc.string({ maxLength: 4 }) });

/** JSON text of an object with these entries (a key may repeat, or be `__proto__`, as in a file). */
const objectText = (entries: readonly (readonly [string, string])[]) => `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`;

const inputsText = fc.array(fc.tuple(name, fc.constantFrom('1', '"x"', '["1",0]', 'null', '{}')), { maxLength: 4 }).map(objectText);
const metaText = fc.oneof(
  name.map((title) => objectText([['title', JSON.stringify(title)]])),
  fc.constantFrom('{}', '{"title":7}', '"Positive"', 'null', '[]'),
);
const nodeText = fc
  .record({ classType: name, inputs: fc.option(inputsText, { freq: 6, nil: undefined }), meta: fc.option(metaText, { freq: 2, nil: undefined }) }, { requiredKeys: ['classType'] })
  .map(({ classType, inputs, meta }) => {
    const entries: [string, string][] = [['class_type', JSON.stringify(classType)]];
    if (inputs !== undefined) entries.push(['inputs', inputs]);
    if (meta !== undefined) entries.push(['_meta', meta]);
    return objectText(entries);
  });
const workflowText = fc.array(fc.tuple(name, nodeText), { minLength: 1, maxLength: 6 }).map(objectText);

/** One definition of `/api/object_info` as the server sends it; some are unreadable (their inputs go unchecked). */
const definitionText = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.tuple(fc.uniqueArray(name, { maxLength: 4 }), fc.uniqueArray(name, { maxLength: 2 })).map(([required, optional]) => {
      const spec = (inputs: string[]) => objectText(inputs.map((input) => [input, '["INT",{}]']));
      return `{"input":{"required":${spec(required)},"optional":${spec(optional)}},"output":[],"name":"N"}`;
    }),
  },
  { weight: 1, arbitrary: fc.constantFrom('{"input":{"required":{"seed":7}}}', '{"input":"none"}', '{}', '[]') },
);

/** `/api/object_info` (or none), mostly for the workflow's class types, read below as `cloud.nodes.list()` reads it. */
function infoTextFor(workflow: Workflow): fc.Arbitrary<string | undefined> {
  const classType = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...Object.values(workflow).map((node) => node.class_type)) }, { weight: 1, arbitrary: name });
  return fc.option(fc.array(fc.tuple(classType, definitionText), { maxLength: 5 }).map(objectText), { freq: 2, nil: undefined });
}

/** The names a workflow's nodes answer to: ids, titles (and what is not a title) and class types. */
function nodeNames(workflow: Workflow): string[] {
  return Object.entries(workflow).flatMap(([id, node]) => [id, node.class_type, (node._meta as { title?: unknown } | null | undefined)?.title].filter((part) => typeof part === 'string'));
}

/** An address: a node part (mostly one the workflow's nodes answer to, maybe escaped) and an input, or any text. */
function addressOf(workflow: Workflow): fc.Arbitrary<string> {
  const nodePart = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...nodeNames(workflow)) }, { weight: 1, arbitrary: name });
  return fc.oneof(
    { weight: 6, arbitrary: fc.tuple(nodePart, name).map(([node, input]) => `${node}.${input}`) },
    { weight: 2, arbitrary: fc.tuple(nodePart, name).map(([node, input]) => `${node.replaceAll('\\', '\\\\').replaceAll('.', '\\.')}.${input}`) },
    { weight: 1, arbitrary: fc.array(fc.constantFrom('a', '.', '\\', 'b', '1', ' '), { maxLength: 7 }).map((parts) => parts.join('')) },
    { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
  );
}

/** A workflow file's text, the node definitions' (or none), and addresses to look up. */
const cases = workflowText.chain((text) => {
  const workflow = JSON.parse(text) as Workflow;
  return fc.tuple(fc.constant(text), infoTextFor(workflow), fc.array(addressOf(workflow), { minLength: 1, maxLength: 4 }));
});

describe('locate() (graphcloud run/estimate/batch --set, --upload, batch --inputs keys)', () => {
  it('finds the same input, or fails with the same WorkflowAddressError, as the marker probe it replaced', () => {
    const kinds = new Set<string>();
    fc.assert(
      fc.property(cases, ([text, rawInfo, addresses]) => {
        const workflow = JSON.parse(text) as Workflow;
        const info = rawInfo === undefined ? undefined : readObjectInfo(JSON.parse(rawInfo) as Record<string, unknown>);
        for (const key of addresses) {
          const expected = outcome(() => markerLocate(workflow, key, info));
          expect(outcome(() => locate(workflow, key, info))).toEqual(expected);
          kinds.add(kindOf(expected));
        }
        // Nothing of the workflow is changed by looking.
        expect(JSON.parse(text)).toEqual(workflow);
      }),
      params(1_000),
    );
    // The generator reaches every answer: a place, and each of the resolver's refusals.
    expect([...kinds].sort()).toEqual([' nodes', 'an address is', 'has no input "', 'names no node', 'no input name after', 'no unescaped dot', 'placed'].sort());
  });
});
