import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scrubbedAnswer } from '../../src/server/scrub-body.js';
import { JOB_TOKEN_HEADER } from '../../src/server/index.js';
import { openSocket } from './helpers.js';
import { hostileStarter, KEY, tokenOf } from './hostile.js';

const utf16le = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
const jsonEscaped = (text: string) => [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
const references = (text: string) => [...text].map((c) => `&#${c.charCodeAt(0)};`).join('');

/** Every spelling of the key a page could decode from what it received. */
function decodable(bytes: Uint8Array): string[] {
  const utf8 = Buffer.from(bytes).toString('utf8');
  const plain = [utf8, Buffer.from(bytes).toString('utf16le'), Buffer.from(bytes.subarray(1)).toString('utf16le'), Buffer.from(bytes).toString('latin1')];
  return plain.flatMap((text) => [text, text.replace(/\\u([0-9a-f]{4})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))), text.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))]);
}

describe('relay: answer bodies that hold the key', () => {
  const start = hostileStarter();

  it('scrubs /api/view success and error bodies in every form a browser decodes, or withholds them with a clear error', async () => {
    const { cloud, relay } = await start();
    const bodies: [string, string, Buffer | string][] = [
      ['text/plain', '200', `the key is ${KEY}, twice: ${KEY}`],
      ['image/svg+xml', '200', `<svg xmlns="http://www.w3.org/2000/svg"><text>${KEY}</text><text>${references(KEY)}</text></svg>`],
      ['text/plain; charset=utf-16', '200', utf16le(`utf-16: ${KEY}`)],
      ['application/json', '200', `{"a":"${jsonEscaped(KEY)}","b":"${KEY.slice(0, 5)}${jsonEscaped(KEY.slice(5))}"}`],
      ['application/octet-stream', '500', `failed with key ${KEY}`],
      ['application/octet-stream', '500', utf16le(`failed with key ${KEY}`)],
      ['image/png', '200', Buffer.concat([Buffer.from([137, 80, 78, 71]), Buffer.from(`tEXt ${KEY}`)])],
      ['image/png', '200', Buffer.concat([Buffer.from([137, 80, 78, 71]), utf16le(KEY)])],
    ];
    let current = bodies[0]!;
    cloud.on('/api/view', (_req, res) => void res.writeHead(Number(current[1]), { 'content-type': current[0] }).end(current[2]));
    const headers = { [JOB_TOKEN_HEADER]: await tokenOf('p-A') };
    for (const body of bodies) {
      current = body;
      const response = await fetch(`${relay.url}/api/view?filename=p-A.txt`, { headers });
      const bytes = new Uint8Array(await response.arrayBuffer().catch(() => new ArrayBuffer(0)));
      for (const text of decodable(bytes)) expect(text, `${body[0]} ${body[1]}`).not.toContain(KEY);
      if (response.status === 502) expect(JSON.parse(Buffer.from(bytes).toString())).toMatchObject({ error: 'unscrubbable_answer' });
    }
    // Text stays readable: the scrubbed UTF-16 body is UTF-8 now.
    current = bodies[2]!;
    const converted = await fetch(`${relay.url}/api/view?filename=p-A.txt`, { headers });
    expect(converted.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await converted.text()).toBe('utf-16: [REDACTED]');
  });

  it('scrubs JSON escapes of the key in HTTP answers and socket text frames', async () => {
    const { cloud, relay } = await start();
    cloud.on('/api/object_info', (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(`{"x":"${jsonEscaped(KEY)}","y":"\\\\u0041"}`));
    const answer = await fetch(`${relay.url}/api/object_info`);
    const parsed = (await answer.json()) as { x: string; y: string };
    expect(parsed).toEqual({ x: '[REDACTED]', y: '\\u0041' });
    const socket = await openSocket(relay.url);
    await cloud.connected();
    socket.subscribe(await tokenOf('p-C'));
    await socket.next((m) => m.type === 'graphcloud_subscribed');
    cloud.push(`{"type":"execution_error","data":{"prompt_id":"p-C","exception_message":"${jsonEscaped(KEY)}"}}`);
    const error = await socket.next((m) => m.type === 'execution_error');
    expect(error.data.exception_message).toBe('[REDACTED]');
    socket.ws.terminate();
  });

  it('cuts off a large binary file that holds the key past its first bytes, before the key leaves', async () => {
    const { cloud, relay } = await start();
    const file = Buffer.concat([Buffer.alloc(200 * 1024, 7), Buffer.from(KEY), Buffer.alloc(1024, 7)]);
    cloud.on('/api/view', (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      // In pieces, the key split across two of them.
      for (let at = 0; at < file.length; at += 1000) res.write(file.subarray(at, at + 1000));
      res.end();
    });
    const received: Uint8Array[] = [];
    try {
      const response = await fetch(`${relay.url}/api/view?filename=p-A.png`, { headers: { [JOB_TOKEN_HEADER]: await tokenOf('p-A') } });
      for await (const chunk of response.body!) received.push(chunk);
    } catch {
      // The answer breaks off: that is the point.
    }
    expect(Buffer.concat(received).length).toBeLessThan(file.length);
    expect(Buffer.concat(received).includes(Buffer.from(KEY))).toBe(false);
  });
});

describe('scrubbedAnswer() on text split anywhere', () => {
  const spelled = fc.array(fc.constantFrom('plain', 'json', 'markup'), { minLength: KEY.length, maxLength: KEY.length }).map((ways) =>
    [...KEY].map((c, i) => (ways[i] === 'json' ? jsonEscaped(c) : ways[i] === 'markup' ? references(c) : c)).join(''),
  );
  const filler = fc.string({ unit: fc.constantFrom('a', 'b', '\\', '\\u0041', '&', '#', ';', 'é', '"', ' ', '\\\\'), maxLength: 40 });
  const cuts = fc.array(fc.nat(), { maxLength: 8 });
  const run = async (text: string, at: number[]) => {
    const bytes = new TextEncoder().encode(text);
    const points = [...new Set(at.map((n) => n % (bytes.length + 1)))].sort((a, b) => a - b);
    const pieces = [0, ...points, bytes.length].slice(1).map((end, i, all) => bytes.subarray(i === 0 ? 0 : all[i - 1], end));
    const body = new ReadableStream<Uint8Array>({ start: (c) => (pieces.forEach((p) => c.enqueue(p)), c.close()) });
    return (await scrubbedAnswer(new Response(body, { headers: { 'content-type': 'text/plain' } }), [KEY])).text();
  };

  // The oracle decodes as JSON does: `\\` is one escaped backslash, never the start of `\u`.
  it('leaves no spelling of the key, wherever the chunks end', async () => {
    await fc.assert(
      fc.asyncProperty(filler, spelled, filler, cuts, async (before, key, after, at) => {
        const out = await run(`${before}${key}${after}`, at);
        for (const text of [out, out.replace(/\\\\|\\u([0-9a-f]{4})/gi, (escape, h?: string) => (h ? String.fromCharCode(parseInt(h, 16)) : escape)).replace(/&#(\d+);/g, (_, d: string) => String.fromCharCode(Number(d)))]) expect(text).not.toContain(KEY);
      }),
      { numRuns: 200 },
    );
  });

  it('changes nothing in a text without the key, wherever the chunks end', async () => {
    const clean = fc.string({ unit: fc.constantFrom('a', '\\', 'u', '0', '4', '1', '&', '#', ';', 'é', '"'), maxLength: 60 });
    await fc.assert(
      fc.asyncProperty(clean, cuts, async (text, at) => {
        // Escapes of plain characters are written plain; everything else stays as it was.
        const once = await run(text, []);
        expect(await run(text, at)).toBe(once);
      }),
      { numRuns: 200 },
    );
  });
});
