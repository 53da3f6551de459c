import { describe, expect, it } from 'vitest';
import { CloudClient } from '../../src/index.js';
import { startSimulator } from '../../src/testing/index.js';

// Real sockets against the simulator (no msw in this file: it would intercept them). 0.1.0 opened
// the socket after close() when the key function was async, and the process never exited.
describe('cloud.close() during socket setup', () => {
  it('leaves no live socket: the one being opened is closed, and none is opened after', async () => {
    const sim = await startSimulator();
    try {
      // The key function is async: the socket used to be created once it resolved, after close().
      const c = new CloudClient({ baseUrl: sim.cloudUrl, apiKey: async () => sim.apiKey });
      const watcher = c.jobs.watch('p');
      await c.close();
      await watcher.result().catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(sim.state.socketCount()).toBe(0);
      expect(sim.state.requests.filter((r) => r.path === '/ws' && r.status === 101)).toHaveLength(0);
    } finally {
      await sim.close();
    }
  });
});
