import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * A canned answer: a status, an optional `Retry-After` in seconds and a body (an object is
 * JSON, a string is text, `null` is empty). Faults and refused upgrades answer with one.
 *
 * @example
 * const refusal: Refusal = { status: 503, retryAfter: 1, body: { message: 'Service Unavailable' } };
 */
export interface Refusal {
  status: number;
  retryAfter?: number | undefined;
  body: unknown;
}

const REASONS: Record<number, string> = {
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

/**
 * Writes a JSON body with the given status.
 *
 * @example
 * sendJson(res, 404, { message: 'Not Found' });
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/**
 * Writes a response with no body (for 204, 404-without-body and redirects).
 *
 * @example
 * sendEmpty(res, 204);
 */
export function sendEmpty(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...headers, 'content-length': 0 });
  res.end();
}

/**
 * Writes raw bytes with a content type.
 *
 * @example
 * sendBytes(res, 200, png, 'image/png');
 */
export function sendBytes(
  res: ServerResponse,
  status: number,
  bytes: Uint8Array,
  contentType: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { ...headers, 'content-type': contentType, 'content-length': bytes.byteLength });
  res.end(bytes);
}

/**
 * Writes a {@link Refusal} as an HTTP response, with optional extra headers.
 *
 * @example
 * sendRefusal(res, { status: 429, retryAfter: 3, body: null }); // empty body
 * sendRefusal(res, { status: 503, retryAfter: 1, body: { message: 'Restarting' } }, { connection: 'close' });
 */
export function sendRefusal(res: ServerResponse, refusal: Refusal, extraHeaders: Record<string, string> = {}): void {
  const headers: Record<string, string> = { ...extraHeaders };
  if (refusal.retryAfter !== undefined) headers['retry-after'] = String(refusal.retryAfter);
  if (refusal.body === null) {
    sendEmpty(res, refusal.status, headers);
  } else if (typeof refusal.body === 'string') {
    res.writeHead(refusal.status, { ...headers, 'content-type': 'text/plain; charset=utf-8' });
    res.end(refusal.body);
  } else {
    sendJson(res, refusal.status, refusal.body, headers);
  }
}

/**
 * Refuses a WebSocket upgrade with a real HTTP response (JSON body, connection closed), so a
 * client can tell a refusal from a network error.
 *
 * @example
 * refuseUpgrade(socket, { status: 401, body: { message: 'Invalid or missing token' } });
 */
export function refuseUpgrade(socket: Duplex, refusal: Refusal): void {
  const body = JSON.stringify(refusal.body);
  const retry = refusal.retryAfter === undefined ? '' : `Retry-After: ${refusal.retryAfter}\r\n`;
  socket.end(
    `HTTP/1.1 ${refusal.status} ${REASONS[refusal.status] ?? 'Error'}\r\n${retry}Content-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
