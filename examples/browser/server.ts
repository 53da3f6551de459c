/**
 * The browser example's server: the page, its script, and the relay (`graphcloud/server`) that
 * keeps the platform key here. A visitor gets a session cookie with the page; the relay serves only
 * requests that carry one, and runs only this page's workflow (pinned by `onSubmit`).
 *
 * Run it (Node 22.18+ or 24; `npm run build` first):
 *   GRAPHCLOUD_CLOUD_URL=https://cloud.example.com GRAPHCLOUD_API_KEY=... RELAY_SECRET=... node examples/browser/server.ts
 * Without GRAPHCLOUD_CLOUD_URL it starts the local simulator. Then open http://127.0.0.1:8788.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { createNodeHandler, createRelay, type SubmitBody } from 'graphcloud/server';

/**
 * Options of the example server.
 *
 * @example
 * ```ts
 * const server = await startExampleServer({ cloudUrl, apiKey, secret, port: 8788 });
 * ```
 */
export interface ExampleServerOptions {
  cloudUrl: string;
  apiKey?: string | undefined;
  /** The relay's token secret: 32 characters or more, the same on every instance. */
  secret: string;
  port?: number | undefined;
}

const here = fileURLToPath(new URL('.', import.meta.url));

/**
 * Starts the page, its script and the relay on 127.0.0.1.
 *
 * @example
 * ```ts
 * const { url, close } = await startExampleServer({ cloudUrl: sim.cloudUrl, apiKey: sim.apiKey, secret });
 * ```
 */
export async function startExampleServer(options: ExampleServerOptions): Promise<{ url: string; close(): Promise<void> }> {
  const [page, script] = await Promise.all([readFile(`${here}index.html`, 'utf8'), bundleScript()]);
  // Your app has its own sessions; here, a visitor who loaded the page holds one.
  const sessions = new Set<string>();
  const relay = createRelay({
    cloudUrl: options.cloudUrl,
    apiKey: options.apiKey,
    secret: options.secret,
    basePath: '/api/graphcloud',
    authorize: (request) => sessions.has(cookie(request.headers.get('cookie'), 'session') ?? ''),
    // Visitors run this page's workflow on their own image, and nothing else.
    onSubmit: (body) => pin(body),
  });
  const node = createNodeHandler(relay);
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/api/graphcloud/')) return node.listener(req, res);
    if (req.url === '/' || req.url === '/index.html') {
      const session = randomUUID();
      sessions.add(session);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'set-cookie': `session=${session}; Path=/; HttpOnly; SameSite=Strict`, 'cache-control': 'no-store' });
      return res.end(page);
    }
    if (req.url === '/app.js') return res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(script);
    res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
  });
  server.on('upgrade', (req, socket, head) => node.upgrade(req, socket, head) || socket.destroy());
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      await relay.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The page's workflow with the visitor's uploaded image: whatever else the browser sent is dropped. */
function pin(body: SubmitBody): SubmitBody | Response {
  const image = (body.prompt['1'] as { inputs?: { image?: unknown } } | undefined)?.inputs?.image;
  if (typeof image !== 'string' || image === '') return new Response(JSON.stringify({ error: 'bad_request', message: 'Node 1 must load an uploaded image' }), { status: 400, headers: { 'content-type': 'application/json' } });
  return {
    prompt: {
      '1': { class_type: 'LoadImage', inputs: { image } },
      '2': { class_type: 'ImageScaleBy', inputs: { image: ['1', 0], upscale_method: 'bilinear', scale_by: 2 } },
      '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'browser-example' } },
    },
  };
}

/** The page's script, bundled from app.ts with the built package (your app uses its own bundler). */
async function bundleScript(): Promise<string> {
  // tsconfigRaw: the repository's tsconfig maps 'graphcloud' to src/ for the type checker; an app's
  // bundler resolves the package's exports (dist/).
  const result = await build({ entryPoints: [`${here}app.ts`], bundle: true, format: 'esm', platform: 'browser', target: 'es2022', write: false, logLevel: 'error', tsconfigRaw: '{}' });
  return result.outputFiles[0]?.text ?? '';
}

function cookie(header: string | null, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const sim = process.env.GRAPHCLOUD_CLOUD_URL ? undefined : await (await import('graphcloud/testing')).startSimulator({ stepDelayMs: 150, progressSteps: 8 });
  const { url } = await startExampleServer({
    cloudUrl: process.env.GRAPHCLOUD_CLOUD_URL ?? sim?.cloudUrl ?? '',
    apiKey: process.env.GRAPHCLOUD_API_KEY ?? sim?.apiKey,
    secret: process.env.RELAY_SECRET ?? randomBytes(32).toString('hex'),
    port: Number(process.env.PORT ?? 8788),
  });
  console.log(`Open ${url}${sim ? ' (against the local simulator)' : ''}`);
}
