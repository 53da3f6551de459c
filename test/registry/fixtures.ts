import type { Node, NodeVersion, Publisher } from '../../src/registry/types.js';

export const BASE = 'https://registry.test';
export const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.registry-test-token.sig';

export const publisher: Publisher = {
  id: 'acme',
  name: 'Acme',
  status: 'PublisherStatusActive',
  createdAt: '2026-01-02T03:04:05Z',
  members: [{ id: 'm1', role: 'owner', user: { id: 'u1', name: 'Ada', email: 'ada@acme.test' } }],
};

export const version = (n: number, extra: Partial<NodeVersion> = {}): NodeVersion => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  version: `1.0.${n}`,
  node_id: 'acme-upscale',
  createdAt: '2026-01-02T03:04:05Z',
  downloadUrl: `https://cdn.test/acme-upscale-1.0.${n}.zip`,
  status: 'NodeVersionStatusActive',
  deprecated: false,
  ...extra,
});

export const node: Node = {
  id: 'acme-upscale',
  name: 'Acme Upscale',
  rating: 4.5,
  downloads: 1200,
  status: 'NodeStatusActive',
  tags: ['image', 'upscale'],
  publisher,
  latest_version: version(3),
  server_added_field: { kept: true },
};
