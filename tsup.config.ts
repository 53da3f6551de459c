import { readFileSync } from 'node:fs';
import path from 'node:path';
import { defineConfig, type Options } from 'tsup';

const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };

/**
 * The command line imports the SDK the way a user does, through its public entries
 * (`src/index.ts`, and `src/testing/index.ts` for `graphcloud sim`). In dist/ those imports become
 * the package's own names, resolved by Node's package self-reference, so dist/cli.js holds the
 * command line alone and the SDK is loaded from dist/index.js like any app loads it.
 */
const selfImports: NonNullable<Options['esbuildPlugins']>[number] = {
  name: 'graphcloud-self-imports',
  setup(build) {
    const entries = new Map([
      [path.resolve('src/index.ts'), 'graphcloud'],
      [path.resolve('src/testing/index.ts'), 'graphcloud/testing'],
      [path.resolve('src/queue/index.ts'), 'graphcloud/queue'],
      [path.resolve('src/codegen/index.ts'), 'graphcloud/codegen'],
    ]);
    build.onResolve({ filter: /^\.\.?\// }, (args) => {
      const name = entries.get(path.resolve(args.resolveDir, args.path).replace(/\.js$/, '.ts'));
      return name ? { path: name, external: true } : undefined;
    });
  },
};

export default defineConfig([
  {
    // The SDK, one output file per source module (not one bundle): with "sideEffects": false a
    // bundler drops whole modules an app does not use, so `import { RegistryClient }` does not
    // ship the proxy or cloud code. Runtime-neutral: no node: import may appear.
    // The relay (`graphcloud/server`, src/server/) is emitted the same way, so it shares the SDK's
    // modules (one ValidationError class for both entries); nothing of the main entry imports it.
    entry: ['src/**/*.ts', '!src/testing/**', '!src/cli/**'],
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
    entry: { testing: 'src/testing/index.ts' },
    format: ['esm'],
    target: 'node22',
    platform: 'node',
    dts: { entry: { testing: 'src/testing/index.ts' } },
    sourcemap: true,
    clean: false,
    external: ['ky', 'zod', 'ws'],
  },
  {
    // The command line (`bin`: graphcloud, and graphcloud-sim, its `sim` command): Node-only, and
    // nothing of it is reachable from the main entry.
    entry: { cli: 'src/cli/main.ts', 'graphcloud-sim': 'src/cli/sim-main.ts' },
    format: ['esm'],
    target: 'node22',
    platform: 'node',
    sourcemap: true,
    clean: false,
    define: { __GRAPHCLOUD_VERSION__: JSON.stringify(version) },
    esbuildPlugins: [selfImports],
    external: ['graphcloud', 'graphcloud/testing', 'graphcloud/queue', 'graphcloud/codegen'],
  },
]);
