import type { IncomingMessage } from 'node:http';

/**
 * Reads one request header as a single string.
 *
 * @example
 * header(req, 'x-api-key');
 */
export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * Every request header as a single string, for the request log.
 *
 * @example
 * headersOf(req)['x-api-key'];
 */
export function headersOf(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/**
 * Reads the Bearer token of a request, if any.
 *
 * @example
 * bearerToken(req); // 'eyJ...' for "Authorization: Bearer eyJ..."
 */
export function bearerToken(req: IncomingMessage): string | undefined {
  const value = header(req, 'authorization');
  const match = value ? /^Bearer\s+(.+)$/i.exec(value.trim()) : null;
  return match?.[1];
}

/**
 * Thrown by {@link readBody} when a body exceeds its limit.
 *
 * @example
 * try { await readBody(req, 10) } catch (error) { if (error instanceof BodyTooLargeError) sendEmpty(res, 413) }
 */
export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
}

/**
 * Reads a whole request body, failing beyond `limit` bytes.
 *
 * @example
 * const bytes = await readBody(req, 1_000_000);
 */
export async function readBody(req: IncomingMessage, limit = 64 * 1024 * 1024): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (size > limit) throw new BodyTooLargeError(`body larger than ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * Reads a JSON body; resolves `undefined` when the body is empty and throws on malformed JSON.
 *
 * @example
 * const body = await readJson(req);
 */
export async function readJson(req: IncomingMessage): Promise<unknown> {
  const bytes = await readBody(req, 4 * 1024 * 1024);
  if (bytes.byteLength === 0) return undefined;
  return JSON.parse(bytes.toString('utf8')) as unknown;
}

/**
 * Narrows an unknown value to a plain JSON object.
 *
 * @example
 * if (isObject(body)) console.log(Object.keys(body));
 */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Parses a boolean query value the way Go and Python servers do (`true`, `1`, `false`, `0`).
 *
 * @example
 * queryBoolean(url.searchParams.get('include_translations')); // true for "true" or "1"
 */
export function queryBoolean(value: string | null): boolean | undefined {
  if (value === null) return undefined;
  const lower = value.toLowerCase();
  if (lower === 'true' || lower === '1') return true;
  if (lower === 'false' || lower === '0' || lower === '') return false;
  return undefined;
}
