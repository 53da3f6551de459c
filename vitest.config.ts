import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/e2e/**', 'node_modules/**'],
    testTimeout: 20_000,
    pool: 'forks',
    // test/core/body-timeout.test.ts forces garbage collections (globalThis.gc).
    execArgv: ['--expose-gc'],
  },
});
