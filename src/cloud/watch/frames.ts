import type { PreviewData, TextData } from './events.js';

/**
 * A decoded binary frame.
 *
 * @example
 * ```ts
 * const frame: DecodedFrame | undefined = decodeBinaryFrame(bytes);
 * ```
 */
export type DecodedFrame = { kind: 'preview'; data: PreviewData } | { kind: 'text'; data: TextData };

const IMAGE_FORMATS: Record<number, string> = { 1: 'image/jpeg', 2: 'image/png' };
const utf8 = new TextDecoder('utf-8', { fatal: false });

/**
 * Decodes a binary WebSocket frame (integers are 4-byte big-endian; see docs/wire-protocol.md#cloud-binary-frames):
 * type 1 preview image, type 3 text, type 4 preview with JSON metadata. Returns `undefined` for
 * any other type and for truncated or malformed frames; never throws.
 *
 * @example
 * ```ts
 * const frame = decodeBinaryFrame(new Uint8Array(event.data));
 * if (frame?.kind === 'preview') show(frame.data.mimeType, frame.data.data);
 * ```
 */
export function decodeBinaryFrame(bytes: Uint8Array<ArrayBuffer>): DecodedFrame | undefined {
  if (bytes.byteLength < 8) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const type = view.getUint32(0);
  const second = view.getUint32(4);
  switch (type) {
    case 1: {
      const mimeType = IMAGE_FORMATS[second];
      if (!mimeType) return undefined;
      return { kind: 'preview', data: { mimeType, data: bytes.subarray(8) } };
    }
    case 3: {
      if (8 + second > bytes.byteLength) return undefined;
      const nodeId = utf8.decode(bytes.subarray(8, 8 + second));
      return { kind: 'text', data: { nodeId: nodeId || undefined, mimeType: 'text/plain', data: utf8.decode(bytes.subarray(8 + second)) } };
    }
    case 4: {
      if (8 + second > bytes.byteLength) return undefined;
      const meta = parseMetadata(bytes.subarray(8, 8 + second));
      if (!meta) return undefined;
      const mimeType = typeof meta.image_type === 'string' ? meta.image_type : 'image/png';
      return {
        kind: 'preview',
        data: { promptId: str(meta.prompt_id), nodeId: str(meta.node_id), displayNodeId: str(meta.display_node_id), mimeType, data: bytes.subarray(8 + second) },
      };
    }
    default:
      return undefined;
  }
}

function parseMetadata(bytes: Uint8Array): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(utf8.decode(bytes));
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
