import { defineConfig } from 'vitest/config';

// End-to-end tests: the BUILT package (`graphcloud`, `graphcloud/testing` resolve to dist/ through
// the package's own `exports`) against the simulator over real sockets on 127.0.0.1.
// Run `npm run build` first. The unit config (vitest.config.ts) excludes test/e2e.
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 15_000,
    teardownTimeout: 10_000,
    pool: 'forks',
    // Two cores on CI: one fork per file, at most two at a time.
    maxWorkers: 2,
  },
});
