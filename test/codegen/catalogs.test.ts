import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateNodeTypes } from '../../src/codegen/index.js';
import { CATALOG_VERSIONS, realCatalog, typeCheck } from './catalogs.js';

// The generated types of two real catalogs (fixtures/README.md), checked by the compiler: right
// graphs compile, wrong ones fail where cases/*.ts say `@ts-expect-error` (an unused one is an
// error too). One compile per catalog.
const cases = (name: string): string => readFileSync(new URL(`cases/${name}`, import.meta.url), 'utf8');

describe('generateNodeTypes() on real catalogs', () => {
  for (const version of CATALOG_VERSIONS) {
    it(`ComfyUI ${version}: right graphs compile, wrong ones do not`, async () => {
      const info = realCatalog(version);
      const text = await generateNodeTypes(info, { server: 'http://127.0.0.1:8188', version });
      expect(text).toBe(await generateNodeTypes(realCatalog(version), { server: 'http://127.0.0.1:8188', version }));
      const files: Record<string, string> = { 'nodes.ts': text, 'sd.ts': cases('sd.ts') };
      if (version === '0.33.0') files['partner.ts'] = cases('partner.ts');
      expect(typeCheck(files)).toEqual([]);
    }, 120_000);
  }
});
