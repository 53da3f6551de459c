import { GraphcloudError, type OpenedFile } from '../core/index.js';

/**
 * Size of the pieces a streamed upload is cut into, in bytes. Measured on Node 24 with a 1 GiB
 * file (bench/cloud-upload.ts), when the file was a blob in the platform's FormData encoder: the
 * 64 KiB chunks the file reader yields (copied once more by the encoder) leave up to ~64 MB of
 * spent chunks waiting for V8's external-memory GC trigger (peak RSS growth 66-93 MB); 8 KiB views
 * of them (no copy) add enough small objects that the young-generation collections which free
 * spent chunks run far more often (32-39 MB).
 */
const PIECE_BYTES = 8 * 1024;

/**
 * Encodes the form `formOf` builds with the runtime's own `FormData` encoder (`new Response(form)`:
 * the boundary, part headers and content type are the platform's, never built by hand), around a
 * placeholder file of MIME type `type`: a unique marker, whose place in the encoding is where the
 * file's bytes go. The body is the encoding before the marker, the opened file read from disk
 * (re-cut into 8 KiB views, no copy), then the encoding after it; its length is exact. Returns the
 * body, and the platform's own `content-type` (with its boundary) plus the exact `content-length`.
 *
 * @example
 * ```ts
 * await withFile(path, 'input', async (file) => {
 *   const { body, headers } = await streamForm((blob) => formOf(blob, name), file, file.type);
 *   return http.request({ method: 'POST', path, body, streamBody: true, options: { headers } });
 * });
 * ```
 */
export async function streamForm(formOf: (file: Blob) => FormData, file: OpenedFile, type: string) {
  const marker = `graphcloud-file-${crypto.randomUUID()}`;
  const encoded = new Response(formOf(new Blob([marker], { type })));
  const headers: Record<string, string> = { 'content-type': encoded.headers.get('content-type') ?? '' };
  const bytes = new Uint8Array(await encoded.arrayBuffer());
  // latin1 (windows-1252) decodes each byte to one code unit: the ASCII marker's index is its byte offset.
  const at = new TextDecoder('latin1').decode(bytes).indexOf(marker);
  if (at === -1) throw new GraphcloudError('The runtime\'s multipart encoder did not keep the file\'s bytes as they are; pass the file as a Blob instead of a path');
  const before = bytes.subarray(0, at);
  const after = bytes.subarray(at + marker.length);
  headers['content-length'] = String(before.byteLength + file.size + after.byteLength);
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controller.enqueue(before);
      },
      async pull(controller) {
        reader ??= file.stream().getReader();
        const { done, value } = await reader.read();
        if (done) {
          controller.enqueue(after);
          controller.close();
          return;
        }
        for (let from = 0; from < value.byteLength; from += PIECE_BYTES) controller.enqueue(value.subarray(from, from + PIECE_BYTES));
      },
      async cancel(reason) {
        await reader?.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return { body, headers };
}

