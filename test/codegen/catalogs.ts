// The real catalogs of test/codegen/fixtures (README.md there says where they come from), and a
// type checker of generated code: the TypeScript compiler API, in this process, over files in a
// temporary folder, with the strictest settings a consumer may use.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import ts from 'typescript';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '../..');

/** The versions of the real catalogs in fixtures/. */
export const CATALOG_VERSIONS = ['0.3.77', '0.33.0'] as const;

/** One real catalog (`GET /api/object_info` of ComfyUI `version`), parsed. */
export function realCatalog(version: (typeof CATALOG_VERSIONS)[number]): Record<string, unknown> {
  return JSON.parse(gunzipSync(readFileSync(join(HERE, 'fixtures', `comfyui-${version}.json.gz`))).toString('utf8')) as Record<string, unknown>;
}

/**
 * A module that stands for the package `graphcloud` in a checked project: the builder's types from
 * the sources (the whole main entry would cost seconds per check).
 */
const GRAPHCLOUD_SHIM = [
  `import type { WorkflowBuilder, WorkflowBuilderOptions } from '${join(REPO, 'src/cloud/workflow/builder-types.js')}';`,
  `export type { Link, NodeRef, NodeShape, Output, WorkflowBuilder } from '${join(REPO, 'src/cloud/workflow/builder-types.js')}';`,
  '// The runtime (builder.ts) is declared: compiling it here would check the SDK under these settings.',
  'export declare function workflow<N = unknown>(options?: WorkflowBuilderOptions): WorkflowBuilder<N>;',
  '',
].join('\n');

/**
 * Type-checks `files` (name → source) as one strict project (`strict`, `exactOptionalPropertyTypes`,
 * `noUncheckedIndexedAccess`, `noUnusedLocals`) in which `graphcloud` is the builder; returns each
 * diagnostic as `file(line): message`.
 */
export function typeCheck(files: Readonly<Record<string, string>>): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'graphcloud-codegen-'));
  try {
    const all: Record<string, string> = { ...files, 'graphcloud.ts': GRAPHCLOUD_SHIM, 'package.json': '{ "type": "module" }' };
    for (const [name, text] of Object.entries(all)) {
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      writeFileSync(join(dir, name), text);
    }
    const options: ts.CompilerOptions = {
      target: ts.ScriptTarget.ES2023,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
      types: [],
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      noUnusedLocals: true,
      skipLibCheck: true,
      noEmit: true,
      paths: { graphcloud: [join(dir, 'graphcloud.ts')] },
    };
    const roots = Object.keys(files).filter((name) => name.endsWith('.ts')).map((name) => join(dir, name));
    const program = ts.createProgram(roots, options);
    return ts.getPreEmitDiagnostics(program).map((d) => {
      const where = d.file ? `${d.file.fileName.replace(`${dir}/`, '')}(${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1})` : '';
      return `${where}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
