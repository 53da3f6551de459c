import { describe, expect, it } from 'vitest';
import { JOB_TOKEN_HEADER } from '../../src/server/index.js';
import { hostileStarter, tokenOf } from './hostile.js';

describe('relay: /api/view against a hostile upstream and visitor', () => {
  const start = hostileStarter();

  it('refuses a repeated query name, and forwards only the values it checked, rebuilt', async () => {
    const { cloud, relay } = await start();
    cloud.on('/api/view', (_req, res, url) => void res.writeHead(200, { 'content-type': 'image/png' }).end(url.searchParams.getAll('filename').at(-1)));
    const headers = { [JOB_TOKEN_HEADER]: await tokenOf('p-B') };
    for (const query of ['filename=p-B.png&filename=p-A.png&type=output', 'filename=p-B.png&subfolder=&subfolder=secret', 'filename=p-B.png&type=output&type=temp', 'filename=p-B.png&preview=a&preview=b']) {
      const response = await fetch(`${relay.url}/api/view?${query}`, { headers });
      expect(response.status, query).toBe(400);
      expect(await response.json()).toMatchObject({ error: 'bad_request' });
    }
    expect(cloud.seen.filter((r) => r.path === '/api/view')).toEqual([]);
    const served = await fetch(`${relay.url}/api/view?type=output&channel=rgb&filename=p-B.png&junk=1&subfolder=`, { headers });
    expect(served.status).toBe(200);
    expect(cloud.seen.filter((r) => r.path === '/api/view').map((r) => r.query)).toEqual(['?filename=p-B.png&subfolder=&type=output&channel=rgb']);
    // The job= token of an <img src> may not repeat either: it is checked once.
    expect((await fetch(`${relay.url}/api/view?filename=p-B.png&job=${await tokenOf('p-B')}&job=${await tokenOf('p-A')}`)).status).toBe(400);
  });
});
