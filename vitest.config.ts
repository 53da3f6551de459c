import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/e2e/**', 'node_modules/**'],
    testTimeout: 20_000,
    pool: 'forks',
    // Two cores on CI: two forks (the default leaves one core idle and doubled the run's time).
    maxWorkers: 2,
    // test/core/body-timeout.test.ts forces garbage collections (globalThis.gc).
    execArgv: ['--expose-gc'],
  },
});
