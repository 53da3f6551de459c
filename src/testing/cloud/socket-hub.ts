import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { encodePreview, encodePreviewWithMetadata, encodeText, garbageFrames, type PreviewMetadata } from './frames.js';

interface Client {
  ws: WebSocket;
  userId: string;
  clientId: string | undefined;
  previewMetadata: boolean;
}

/**
 * Who receives a run's messages: in the cloud every socket of the user, locally the socket
 * whose `clientId` matches the submission (every socket when the submission named none).
 *
 * @example
 * const audience: Audience = { userId: 'demo-user', clientId: 'abc' };
 */
export interface Audience {
  userId: string;
  clientId?: string | undefined;
}

/**
 * The open sockets of the cloud's `/ws`: accepted upgrades, routing of messages to their audience,
 * preview and text frames, and the socket faults' effects (drops, garbage frames).
 *
 * @example
 * const hub = new SocketHub('cloud', () => 0);
 * router.upgrade('/ws', (ctx) => ({ accept: () => hub.accept(ctx.req, ctx.socket, ctx.head, 'demo-user') }));
 */
export class SocketHub {
  readonly #server = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  readonly #clients = new Set<Client>();
  readonly #runtime: 'cloud' | 'local';
  readonly #queueRemaining: () => number;

  constructor(runtime: 'cloud' | 'local', queueRemaining: () => number) {
    this.#runtime = runtime;
    this.#queueRemaining = queueRemaining;
  }

  /** Completes an accepted upgrade; the socket's `clientId` comes from the query. */
  accept(req: IncomingMessage, socket: Duplex, head: Buffer, userId: string): void {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const clientId = url.searchParams.get('clientId') ?? undefined;
    this.#server.handleUpgrade(req, socket, head, (ws) => this.#attach(ws, userId, clientId));
  }

  #attach(ws: WebSocket, userId: string, clientId: string | undefined): void {
    const client: Client = { ws, userId, clientId, previewMetadata: false };
    this.#clients.add(client);
    ws.on('close', () => this.#clients.delete(client));
    ws.on('error', () => this.#clients.delete(client));
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      try {
        const message = JSON.parse(String(data)) as { type?: unknown; data?: { supports_preview_metadata?: unknown } };
        if (message.type === 'feature_flags') {
          client.previewMetadata = message.data?.supports_preview_metadata === true;
          this.#send(client, JSON.stringify({ type: 'feature_flags', data: { supports_preview_metadata: true, max_upload_size: 52428800 } }));
        }
      } catch {
        // A real server ignores text it cannot parse.
      }
    });
    const sid = clientId ?? randomUUID().replaceAll('-', '');
    this.#send(client, JSON.stringify({ type: 'status', data: { status: { exec_info: { queue_remaining: this.#queueRemaining() } }, sid } }));
  }

  #targets(audience: Audience): Client[] {
    return [...this.#clients].filter((client) => {
      if (client.ws.readyState !== client.ws.OPEN) return false;
      if (this.#runtime === 'local') return audience.clientId === undefined || client.clientId === audience.clientId;
      return client.userId === audience.userId;
    });
  }

  #send(client: Client, data: string | Buffer): Promise<void> {
    return new Promise((resolve) => {
      if (client.ws.readyState !== client.ws.OPEN) {
        resolve();
        return;
      }
      client.ws.send(data, { binary: typeof data !== 'string' }, () => resolve());
    });
  }

  /** Sends a `{type, data}` text message; resolves once written to every target. */
  async sendJson(audience: Audience, type: string, data: Record<string, unknown>): Promise<void> {
    const text = JSON.stringify({ type, data });
    await Promise.all(this.#targets(audience).map((client) => this.#send(client, text)));
  }

  /** Sends a preview: type 4 to sockets that asked for metadata, type 1 to the others. */
  async sendPreview(audience: Audience, image: Uint8Array, metadata: PreviewMetadata): Promise<void> {
    const plain = encodePreview(image, metadata.image_type === 'image/jpeg' ? 'jpeg' : 'png');
    const rich = encodePreviewWithMetadata(image, metadata);
    await Promise.all(this.#targets(audience).map((client) => this.#send(client, client.previewMetadata ? rich : plain)));
  }

  /** Sends a type 3 text frame. */
  async sendText(audience: Audience, nodeId: string, text: string): Promise<void> {
    const frame = encodeText(nodeId, text);
    await Promise.all(this.#targets(audience).map((client) => this.#send(client, frame)));
  }

  /** Sends the garbage frames to the audience, or to every socket. */
  async sendGarbage(audience?: Audience): Promise<number> {
    const targets = audience ? this.#targets(audience) : [...this.#clients];
    await Promise.all(targets.flatMap((client) => garbageFrames().map((frame) => this.#send(client, frame.data))));
    return targets.length;
  }

  /** Drops the audience's sockets (or all): `terminate()` unless a close code is given. */
  drop(audience?: Audience, code?: number): number {
    const targets = audience ? this.#targets(audience) : [...this.#clients];
    for (const client of targets) {
      if (code === undefined) client.ws.terminate();
      else client.ws.close(code, 'Dropped by the simulator');
      this.#clients.delete(client);
    }
    return targets.length;
  }

  /** Number of open sockets. */
  count(): number {
    return this.#clients.size;
  }

  /** Terminates every socket and the socket server. */
  close(): Promise<void> {
    this.drop();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}
