import fc from 'fast-check';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { generateNodeTypes } from '../../src/codegen/index.js';
import { typeCheck } from './catalogs.js';

// Catalogs are data from a server: a node pack's names, descriptions and tooltips. None of them
// may end a comment or a string of the generated module, or make it fail to compile.
const NASTY = ['*/', '/*', '//', '\u2028', '\u2029', '\r\n', '\n', '\r', "'", '"', '`', '${', '\\', '\ud800', '\udc00', '\ufeff', '\u0000', '__proto__', 'constructor', 'then', 'id', 'out', '0', '1e3', '-', '.', ' ', '@default', '<T>', 'Link<', "Link<'IMAGE'>"];
const text = fc.array(fc.oneof(fc.constantFrom(...NASTY), fc.string({ unit: 'binary', maxLength: 6 })), { maxLength: 5 }).map((parts) => parts.join(''));
// The server's name and version are options: checked, so never empty.
const label = text.filter((value) => value.trim() !== '');
const name = fc.oneof(text, fc.constantFrom('KSampler', 'image', 'IMAGE'));
const options = fc.dictionary(fc.constantFrom('tooltip', 'default', 'min', 'max', 'step', 'display_name'), fc.oneof(text, fc.double(), fc.integer(), fc.boolean()), { maxKeys: 4 });

const plainSpec = fc.oneof(
  fc.tuple(fc.constantFrom('INT', 'FLOAT', 'STRING', 'BOOLEAN', 'IMAGE', '*', 'IMAGE,MASK', 'FLOAT,INT'), options),
  fc.tuple(text, options),
  fc.tuple(fc.array(fc.oneof(text, fc.integer(), fc.boolean()), { maxLength: 6 }), options),
  fc.tuple(fc.constant('COMBO'), fc.record({ options: fc.array(text, { maxLength: 6 }), tooltip: text })),
  fc.tuple(fc.constant('COMFY_MATCHTYPE_V3'), fc.record({ template: fc.record({ template_id: text, allowed_types: fc.oneof(text, fc.constant('*')) }) })),
  fc.constant('not a spec'),
);
const section = (spec: fc.Arbitrary<unknown>) => fc.dictionary(name, spec, { maxKeys: 4 });
const dynamicSpec = fc.oneof(
  plainSpec,
  fc.tuple(fc.constant('COMFY_DYNAMICCOMBO_V3'), fc.record({ options: fc.array(fc.record({ key: text, inputs: fc.record({ required: section(plainSpec), optional: section(plainSpec) }) }), { maxLength: 3 }) })),
  fc.tuple(fc.constant('COMFY_AUTOGROW_V3'), fc.record({ template: fc.record({ input: fc.record({ required: section(plainSpec) }), prefix: text, min: fc.integer({ min: -1, max: 3 }), max: fc.integer({ min: 0, max: 4 }) }) })),
  fc.tuple(fc.constant('COMFY_AUTOGROW_V3'), fc.record({ template: fc.record({ input: fc.record({ optional: section(plainSpec) }), names: fc.array(text, { maxLength: 3 }), min: fc.nat(3) }) })),
  fc.tuple(fc.constant('COMFY_FUTURE_V3'), options),
);
const definition = fc.record(
  {
    input: fc.record({ required: section(dynamicSpec), optional: section(dynamicSpec), hidden: section(fc.constant('PROMPT')) }, { requiredKeys: [] }),
    output: fc.array(fc.oneof(text, fc.constant(['a', 'b'])), { maxLength: 3 }),
    output_name: fc.array(text, { maxLength: 3 }),
    output_tooltips: fc.array(fc.oneof(text, fc.constant(null)), { maxLength: 3 }),
    display_name: text,
    description: text,
    category: text,
    deprecated: fc.boolean(),
    experimental: fc.boolean(),
  },
  { requiredKeys: [] },
);
const catalog = fc.dictionary(name, definition, { maxKeys: 4 });

/** The generated module's outline: its statements, the Nodes member names and the table's keys, as the compiler reads them. */
function outline(source: string): { syntax: string[]; statements: string[]; classes: string[]; table: string[] } {
  const syntax = (ts.transpileModule(source, { reportDiagnostics: true, compilerOptions: { module: ts.ModuleKind.ESNext } }).diagnostics ?? []).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  const file = ts.createSourceFile('nodes.ts', source, ts.ScriptTarget.ES2023, true);
  const statements = file.statements.map((s) => (ts.isImportDeclaration(s) ? 'import' : ts.isInterfaceDeclaration(s) ? 'interface' : ts.isTypeAliasDeclaration(s) ? 'type' : ts.isVariableStatement(s) ? 'const' : ts.SyntaxKind[s.kind]));
  const nodes = file.statements.find(ts.isInterfaceDeclaration);
  const classes = (nodes?.members ?? []).map((m) => (m.name && (ts.isIdentifier(m.name) || ts.isStringLiteral(m.name)) ? m.name.text : '?'));
  const table: string[] = [];
  const variable = file.statements.find(ts.isVariableStatement)?.declarationList.declarations[0];
  if (variable?.initializer && ts.isObjectLiteralExpression(variable.initializer)) {
    for (const p of variable.initializer.properties) {
      const key = p.name && ts.isComputedPropertyName(p.name) ? p.name.expression : p.name;
      table.push(key && (ts.isIdentifier(key) || ts.isStringLiteral(key)) ? key.text : '?');
    }
  }
  return { syntax, statements, classes, table };
}

describe('generateNodeTypes() on hostile catalogs', () => {
  it('writes exactly the module it should: no comment or string broken out of, every name as the catalog has it', async () => {
    await fc.assert(
      fc.asyncProperty(catalog, label, label, async (info, server, version) => {
        const source = await generateNodeTypes(info, { server, version });
        const { syntax, statements, classes, table } = outline(source);
        expect(syntax).toEqual([]);
        const names = Object.keys(info).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        expect(statements).toEqual([...(source.includes('import type { Link }') ? ['import'] : []), names.length > 0 ? 'interface' : 'type', 'const']);
        expect(classes).toEqual(names);
        expect(table).toEqual(names.filter((n) => Array.isArray(info[n]?.output) && info[n].output.length > 0));
        expect(source.split('\n').slice(0, 4).every((line) => line.startsWith('//'))).toBe(true);
      }),
      { numRuns: 300 },
    );
    // Generous: under load, the property's 300 catalogs took 4 s on 2 cores (3,000 took 34 s).
  }, 120_000);

  it('writes modules that compile in a strict project (40 catalogs, one compile)', async () => {
    const samples = fc.sample(fc.tuple(catalog, label), { numRuns: 40, seed: 31 });
    const files: Record<string, string> = {};
    for (const [i, [info, server]] of samples.entries()) files[`nodes${i}.ts`] = await generateNodeTypes(info, { server });
    expect(typeCheck(files)).toEqual([]);
  }, 120_000);
});
