// The relay on Deno or Bun, with the runtime's own adapter: started by adapters.mjs, prints its port.
//   deno run -A test/server/adapters/serve.mjs <cloudUrl> <apiKey> <secret>
//   bun run test/server/adapters/serve.mjs <cloudUrl> <apiKey> <secret>
import { createBunHandler, createDenoHandler, createRelay } from 'graphcloud/server';

const args = globalThis.Deno ? globalThis.Deno.args : globalThis.process.argv.slice(2);
const [cloudUrl, apiKey, secret] = args;
// A short body bound, so that adapters.mjs can see a dripping body refused on this runtime too.
const relay = createRelay({ cloudUrl, apiKey, secret, basePath: '/api/graphcloud', bodyTimeoutMs: 1_000, authorize: (request) => request.headers.get('cookie') === 'session=ok' });
if (globalThis.Deno) {
  globalThis.Deno.serve({ port: 0, hostname: '127.0.0.1', onListen: ({ port }) => console.log(JSON.stringify({ port, runtime: `deno ${globalThis.Deno.version.deno}` })) }, createDenoHandler(relay));
} else {
  const server = globalThis.Bun.serve({ port: 0, hostname: '127.0.0.1', ...createBunHandler(relay) });
  console.log(JSON.stringify({ port: server.port, runtime: `bun ${globalThis.Bun.version}` }));
}
