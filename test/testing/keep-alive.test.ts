import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/testing/index.js';

const sims: Simulator[] = [];
afterEach(async () => {
  await Promise.all(sims.splice(0).map((s) => s.close()));
});

describe('the simulator keeps an idle connection open longer than a client does', () => {
  // With Node's default (5 s), a busy client reused a connection the server was closing: the
  // submission met ECONNRESET and became a SubmissionUnknownError (the unit suite failed so on a
  // loaded machine). A client closes an idle connection a little before the server's hint runs out;
  // at 65 s no test's connection idles that long.
  it('says keep-alive timeout=65 on every area', async () => {
    const s = await startSimulator({ stepDelayMs: 0 });
    sims.push(s);
    for (const url of [`${s.cloudUrl}/api/queue`, `${s.registryUrl}/nodes?limit=1`, `${s.filesUrl}/missing`]) {
      const response = await fetch(url, { headers: { 'X-API-Key': s.apiKey } });
      await response.arrayBuffer();
      expect(response.headers.get('keep-alive'), url).toBe('timeout=65');
    }
  });
});
