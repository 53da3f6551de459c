/**
 * bull-board, the dashboard BullMQ users already run, mounted on Node's own HTTP server for a
 * queue of graphcloud/queue: `@bull-board/api` with its Hono adapter (`hono` and
 * `@hono/node-server`: no other web framework). bull-board reads the queue through BullMQ, so it
 * is given a BullMQ `Queue` of the same name and prefix (`QUEUE_DEFAULTS.prefix`, 'graphcloud').
 * Imported by examples/queue-dashboard.ts and by the page check of `npm test`; it starts nothing
 * when run alone.
 *
 *   const dashboard = await startQueueDashboard({ connection: 'redis://127.0.0.1:6379', queues: ['renders'] });
 *   console.log(dashboard.url); // http://127.0.0.1:3000/ui
 */
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { HonoAdapter } from '@bull-board/hono';
import { serve } from '@hono/node-server';
import { serveStatic } from '@hono/node-server/serve-static';
import { Queue } from 'bullmq';
import { QUEUE_DEFAULTS } from 'graphcloud/queue';
import { Hono } from 'hono';
import type { AddressInfo } from 'node:net';

/** What `startQueueDashboard()` takes. */
export interface QueueDashboardOptions {
  /** The Redis of the queues: a redis:// URL. */
  connection: string;
  /** The names of the queues to show (`new RunQueue({ name })`). */
  queues: string[];
  /** The port on 127.0.0.1 (0: any free one). */
  port?: number;
  /** The path the dashboard is served under. */
  basePath?: string;
}

/** Serves the dashboard; `close()` stops the server and the dashboard's Redis connections. */
export async function startQueueDashboard(options: QueueDashboardOptions): Promise<{ url: string; close(): Promise<void> }> {
  const basePath = options.basePath ?? '/ui';
  const queues = options.queues.map((name) => new Queue(name, { connection: { url: options.connection }, prefix: QUEUE_DEFAULTS.prefix }));
  const adapter = new HonoAdapter(serveStatic).setBasePath(basePath);
  createBullBoard({ queues: queues.map((queue) => new BullMQAdapter(queue, { readOnlyMode: false })), serverAdapter: adapter, options: { uiConfig: { boardTitle: 'graphcloud runs' } } });
  const app = new Hono();
  app.route(basePath, adapter.registerPlugin());
  app.get('/', (c) => c.redirect(basePath));
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const started = serve({ fetch: app.fetch, port: options.port ?? 0, hostname: '127.0.0.1' }, () => resolve(started));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${basePath}`,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all(queues.map((queue) => queue.close()));
    },
  };
}
