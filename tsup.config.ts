import { defineConfig } from 'tsup';

export default defineConfig([
  {
    // The SDK: runtime-neutral (Node, Bun, Deno, browsers, edge); no node: import may appear.
    entry: { index: 'src/index.ts' },
    format: ['esm'],
    target: 'es2023',
    platform: 'neutral',
    dts: true,
    sourcemap: true,
    clean: false,
    treeshake: true,
    external: ['ky', 'zod', 'eventemitter3', 'ws'],
  },
  {
    // The simulator: Node-only, a separate entry so nothing of it reaches the main bundle.
    entry: { testing: 'src/testing/index.ts', 'testing-cli': 'src/testing/cli.ts' },
    format: ['esm'],
    target: 'node22',
    platform: 'node',
    dts: { entry: { testing: 'src/testing/index.ts' } },
    sourcemap: true,
    clean: false,
    external: ['ky', 'zod', 'eventemitter3', 'ws'],
  },
]);
