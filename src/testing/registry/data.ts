import { seededUuid } from '../server/random.js';

/**
 * A registry user behind a Bearer token.
 *
 * @example
 * const user: RegistryUser = { id: 'demo-user', name: 'Demo User', email: 'demo@example.com' };
 */
export interface RegistryUser {
  id: string;
  name: string;
  email: string;
}

/** Wire-shaped registry records: field names keep the API's spelling. */
type WireRecord = Record<string, unknown>;

/**
 * The node version statuses, in the order the registry documents them.
 *
 * @example
 * VERSION_STATUSES.includes('NodeVersionStatusFlagged'); // true
 */
export const VERSION_STATUSES = Object.freeze([
  'NodeVersionStatusActive',
  'NodeVersionStatusDeleted',
  'NodeVersionStatusBanned',
  'NodeVersionStatusPending',
  'NodeVersionStatusFlagged',
] as const);

const REASONS: Record<string, string[]> = {
  NodeVersionStatusActive: ['Approved by automated review', 'Approved manually'],
  NodeVersionStatusDeleted: ['Deleted by publisher'],
  NodeVersionStatusBanned: ['Banned: MALWARE detected in install script', 'Banned: license violation'],
  NodeVersionStatusPending: ['Awaiting manual review'],
  NodeVersionStatusFlagged: ['Flagged: suspicious network call at import', 'Flagged: obfuscated code'],
};

/**
 * The whole in-memory registry.
 *
 * @example
 * const data = seedRegistry(users, random);
 * data.publishers.get('demo-publisher');
 */
export interface RegistryData {
  users: Map<string, RegistryUser>;
  publishers: Map<string, WireRecord>;
  nodes: Map<string, WireRecord>;
  aliases: Map<string, string>;
  versions: Map<string, WireRecord>;
  reviews: Map<string, number[]>;
  graphNodes: Map<string, WireRecord>;
  /** Personal access tokens by publisher, by token id. */
  tokens: Map<string, Map<string, TokenRecord>>;
}

/**
 * A personal access token: its listing fields and its secret (answered once, at creation).
 *
 * @example
 * const token: TokenRecord = { id: 't1', name: 'ci', description: '', createdAt: '2024-01-01T00:00:00Z', secret: 'pat_…' };
 */
export interface TokenRecord {
  id: string;
  name: string;
  description: string;
  createdAt: string;
  secret: string;
}

/**
 * Number of seeded versions; enough for several pages at the maximum page size.
 *
 * @example
 * Math.ceil(SEEDED_VERSION_COUNT / 100); // 3 pages of 100
 */
export const SEEDED_VERSION_COUNT = 250;

const SEEDED_NODES = [
  { id: 'demo-node', publisher: 'demo-publisher', name: 'Demo Node Pack', tags: ['image', 'demo'] },
  { id: 'image-tools', publisher: 'demo-publisher', name: 'Image Tools', tags: ['image'] },
  { id: 'video-kit', publisher: 'other-publisher', name: 'Video Kit', tags: ['video'] },
  { id: 'mask-utils', publisher: 'other-publisher', name: 'Mask Utilities', tags: ['mask'] },
  { id: 'legacy-pack', publisher: 'other-publisher', name: 'Legacy Pack', tags: ['legacy'] },
];

function member(user: RegistryUser, role: 'owner' | 'member'): WireRecord {
  return { id: `${user.id}-membership`, role, user: { ...user } };
}

function publisher(id: string, name: string, members: WireRecord[]): WireRecord {
  return {
    id, name, description: `${name}, seeded by the simulator`, website: `https://example.com/${id}`,
    support: `https://example.com/${id}/support`, source_code_repo: `https://github.com/${id}`,
    logo: `https://example.com/${id}/logo.png`, createdAt: '2024-01-01T00:00:00Z',
    status: 'PublisherStatusActive', members,
  };
}

/**
 * Seeds publishers, users, nodes (one alias), 250 versions across every status, and tokens.
 *
 * @example
 * const data = seedRegistry({ owner, member }, seededRandom(1), 'http://127.0.0.1:1234');
 */
export function seedRegistry(
  people: { owner: RegistryUser; member: RegistryUser; stranger: RegistryUser },
  random: () => number,
  downloadBase: string,
): RegistryData {
  const data: RegistryData = {
    users: new Map(), publishers: new Map(), nodes: new Map(), aliases: new Map(),
    versions: new Map(), reviews: new Map(), graphNodes: new Map(), tokens: new Map(),
  };
  data.publishers.set('demo-publisher', publisher('demo-publisher', 'Demo Publisher', [member(people.owner, 'owner'), member(people.member, 'member')]));
  data.publishers.set('other-publisher', publisher('other-publisher', 'Other Publisher', [member(people.stranger, 'owner')]));
  data.tokens.set('demo-publisher', new Map(['token-1', 'token-2'].map((id) => [id, { id, name: id, description: 'seeded', createdAt: '2024-01-01T00:00:00Z', secret: `pat_${seededUuid(random)}` }])));
  for (const [index, seed] of SEEDED_NODES.entries()) {
    data.nodes.set(seed.id, {
      id: seed.id, name: seed.name, description: `${seed.name} for the simulator`, author: 'Simulator',
      publisher_id: seed.publisher, category: seed.tags[0], tags: seed.tags, tags_admin: [],
      repository: `https://github.com/${seed.publisher}/${seed.id}`, license: 'LICENSE',
      icon: `https://example.com/${seed.id}/icon.png`, banner_url: `https://example.com/${seed.id}/banner.png`,
      downloads: 1000 - index * 100, github_stars: 50 - index * 5, search_ranking: index + 1,
      status: 'NodeStatusActive', status_detail: '', created_at: '2024-01-01T00:00:00Z',
      preempted_graph_node_names: [], supported_os: ['linux', 'windows', 'macos'],
      supported_accelerators: ['cuda', 'cpu'], supported_host_version: '>=0.3.0', supported_host_frontend_version: '>=1.10.0',
      translations: { fr: { name: `${seed.name} (fr)`, description: 'Noeuds de démonstration' }, ja: { name: `${seed.name} (ja)` } },
    });
    data.reviews.set(seed.id, []);
  }
  data.aliases.set('demo-node-alias', 'demo-node');
  const start = Date.UTC(2024, 0, 1);
  for (let index = 0; index < SEEDED_VERSION_COUNT; index += 1) {
    const node = SEEDED_NODES[index % SEEDED_NODES.length]!;
    const serial = Math.floor(index / SEEDED_NODES.length);
    const status = VERSION_STATUSES[index % 7 < 3 ? 0 : (index % 7) - 2] ?? 'NodeVersionStatusActive';
    const reasons = REASONS[status] ?? [''];
    const id = seededUuid(random);
    const version = `1.${Math.floor(serial / 10)}.${serial % 10}`;
    data.versions.set(id, {
      id, node_id: node.id, version, changelog: `Changes of ${version}`, status,
      status_reason: reasons[serial % reasons.length], deprecated: false,
      createdAt: new Date(start + index * 3_600_000).toISOString(),
      downloadUrl: `${downloadBase}/downloads/${node.id}/${version}.zip`,
      dependencies: ['numpy'], supported_os: ['linux'], supported_accelerators: ['cuda'],
      supported_host_version: '>=0.3.0', supported_host_frontend_version: '>=1.10.0',
      tags: [], tags_admin: [], node_extract_status: 'success',
    });
  }
  return data;
}

/**
 * A node as the API answers it: publisher embedded, rating averaged, latest active version attached.
 *
 * @example
 * nodeView(data, data.nodes.get('demo-node')!, false);
 */
export function nodeView(data: RegistryData, node: WireRecord, withTranslations: boolean): WireRecord {
  const { publisher_id: publisherId, translations, ...rest } = node;
  const stars = data.reviews.get(String(node.id)) ?? [];
  const latest = [...data.versions.values()]
    .filter((version) => version.node_id === node.id && version.status === 'NodeVersionStatusActive')
    .sort((a, b) => String(b.createdAt).localeCompare(String(a.createdAt)))[0];
  const view: WireRecord = {
    ...rest,
    publisher: data.publishers.get(String(publisherId)),
    rating: stars.length === 0 ? 0 : stars.reduce((sum, star) => sum + star, 0) / stars.length,
  };
  if (latest) view.latest_version = versionView(latest, true);
  if (withTranslations) view.translations = translations ?? {};
  return view;
}

/**
 * A version as the API answers it; `status_reason` only when asked for.
 *
 * @example
 * versionView(version, false); // no status_reason field
 */
export function versionView(version: WireRecord, withReason: boolean): WireRecord {
  if (withReason) return { ...version };
  const { status_reason: _reason, ...rest } = version;
  return rest;
}
