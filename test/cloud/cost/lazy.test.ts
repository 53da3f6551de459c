import { describe, expect, it } from 'vitest';
import { upFront } from '../../helpers/bundle.js';

describe('cost estimates in a browser bundle', () => {
  it('load on first use: the main entry holds neither the estimator nor JSONata up front', async () => {
    const modules = await upFront("export * from './src/index.ts';");
    expect(modules).toContain('src/cloud/client.ts');
    expect(modules.filter((file) => /src\/cloud\/cost\/(estimate|badge|context)\.ts$|node_modules\/jsonata\//.test(file))).toEqual([]);
  });

  it('load JSONata only when a workflow has a priced node: the estimator holds none of it up front', async () => {
    const modules = await upFront("export * from './src/cloud/cost/estimate.ts';");
    expect(modules).toContain('src/cloud/cost/badge.ts');
    expect(modules.filter((file) => file.includes('node_modules/jsonata/'))).toEqual([]);
  });
});
