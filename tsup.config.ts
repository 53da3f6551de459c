import { defineConfig } from 'tsup';

export default defineConfig([
  {
    // The SDK, one output file per source module (not one bundle): with "sideEffects": false a
    // bundler drops whole modules an app does not use, so `import { RegistryClient }` does not
    // ship the proxy or cloud code. Runtime-neutral: no node: import may appear.
    entry: ['src/**/*.ts', '!src/testing/**'],
    bundle: false,
    format: ['esm'],
    target: 'es2023',
    platform: 'neutral',
    // Declarations come from tsc (tsconfig.build.json), one per module.
    dts: false,
    sourcemap: true,
    clean: false,
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
    external: ['ky', 'zod', 'ws'],
  },
]);
