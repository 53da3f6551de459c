// Imports the built package by name, as an ESM user would, and makes one real call.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import * as graphcloud from 'graphcloud';

const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ id: 'smoke-node', rating: 5 }));
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
try {
  const registry = new graphcloud.RegistryClient({ baseUrl: `http://127.0.0.1:${server.address().port}` });
  const node = await registry.nodes.get('smoke-node');
  assert.equal(node.id, 'smoke-node');
  assert.ok(new graphcloud.NotFoundError({ status: 404, method: 'GET', url: 'x', body: undefined }) instanceof graphcloud.ApiError);
  assert.ok(Object.isFrozen(graphcloud.DEFAULTS));
  console.log(`ESM import ok: ${Object.keys(graphcloud).length} exports`);
} finally {
  server.close();
}
