/**
 * Size of the pieces a streamed upload is cut into, in bytes. Measured on Node 24 with a 1 GiB
 * file (bench/cloud-upload.ts): the 64 KiB chunks the file reader yields (copied once more by the
 * FormData encoder) leave up to ~64 MB of spent chunks waiting for V8's external-memory GC
 * trigger (peak RSS growth 66-93 MB); 8 KiB views of them (no copy) add enough small objects that
 * the young-generation collections which free spent chunks run far more often (32-39 MB).
 */
const PIECE_BYTES = 8 * 1024;

/**
 * A multipart body as the platform encodes it, ready to stream: the body, and the platform's own
 * `content-type` (with its boundary) plus `content-length` when it can be known exactly.
 *
 * @example
 * ```ts
 * const { body, headers } = await streamForm(form, twin, file.size);
 * ```
 */
export interface StreamedForm {
  body: ReadableStream<Uint8Array>;
  headers: Record<string, string>;
}

/**
 * Encodes `form` with the runtime's own `FormData` encoder (`new Response(form)`: the boundary and
 * content type are the platform's, never built by hand) and re-cuts its stream into 8 KiB views
 * (no copy). `twin` is the same form with an empty file: its encoded size plus `fileSize` is the
 * exact length, provided both boundaries have the same length (checked through the two content
 * types); otherwise the body goes out chunked.
 *
 * @example
 * ```ts
 * const { body, headers } = await streamForm(form, twin, blob.size);
 * await http.request({ method: 'POST', path, body, streamBody: true, options: { headers } });
 * ```
 */
export async function streamForm(form: FormData, twin: FormData, fileSize: number): Promise<StreamedForm> {
  const encoded = new Response(form);
  const probe = new Response(twin);
  const type = encoded.headers.get('content-type') ?? '';
  const headers: Record<string, string> = { 'content-type': type };
  const probeType = probe.headers.get('content-type') ?? '';
  const probeBytes = (await probe.arrayBuffer()).byteLength;
  if (probeType.length === type.length) headers['content-length'] = String(probeBytes + fileSize);
  const source = encoded.body;
  if (!source) throw new TypeError('the runtime returned no multipart body');
  const body = source.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        for (let at = 0; at < chunk.byteLength; at += PIECE_BYTES) controller.enqueue(chunk.subarray(at, at + PIECE_BYTES));
      },
    }),
  );
  return { body, headers };
}

/**
 * True where a file path is streamed through the re-cut body: Node's own `fetch` (undici), which
 * accepts a streamed request body and a computed `content-length`. Bun, Deno and browsers send
 * the `FormData` itself.
 *
 * @example
 * ```ts
 * if (typeof input === 'string' && streamsUploads()) ({ body, headers } = await streamForm(form, twin, blob.size));
 * ```
 */
export function streamsUploads(): boolean {
  const g = globalThis as { process?: { versions?: Record<string, string | undefined> }; Deno?: unknown };
  return Boolean(g.process?.versions?.node) && !g.process?.versions?.bun && g.Deno === undefined;
}
