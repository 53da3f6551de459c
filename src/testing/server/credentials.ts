import { randomBytes } from 'node:crypto';

/**
 * A random cloud/platform API key in the simulator's format.
 *
 * @example
 * generateApiKey(); // "gcsim_3f9c..."
 */
export function generateApiKey(): string {
  return `gcsim_${randomBytes(16).toString('hex')}`;
}

/**
 * A JWT-shaped Bearer token for a user (the registry declares JWT tokens); the signature is random.
 *
 * @example
 * generateToken('demo-user'); // "eyJhbGciOiJIUzI1NiIs..."
 */
export function generateToken(userId: string): string {
  const encode = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  const payload = { sub: userId, iss: 'graphcloud-simulator', iat: Math.floor(Date.now() / 1000) };
  return `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode(payload)}.${randomBytes(32).toString('base64url')}`;
}

/**
 * The users behind the simulator's credentials.
 *
 * @example
 * DEMO_USERS.owner.id; // 'demo-user'
 */
export const DEMO_USERS = Object.freeze({
  owner: { id: 'demo-user', name: 'Demo User', email: 'demo@example.com' },
  member: { id: 'member-user', name: 'Member User', email: 'member@example.com' },
  stranger: { id: 'other-user', name: 'Other User', email: 'other@example.com' },
});
