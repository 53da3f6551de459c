// CommonJS users reach the ESM-only package through require(esm), supported from Node 22.12.
const assert = require('node:assert/strict');
const graphcloud = require('graphcloud');

assert.equal(typeof graphcloud.RegistryClient, 'function');
assert.equal(typeof graphcloud.ValidationError, 'function');
const registry = new graphcloud.RegistryClient({ baseUrl: 'https://registry.example.com' });
registry.nodes
  .review('x', 9)
  .then(() => assert.fail('a star of 9 must be refused'))
  .catch((error) => {
    assert.ok(error instanceof graphcloud.ValidationError);
    console.log(`CommonJS require ok: ${Object.keys(graphcloud).length} exports`);
  });
