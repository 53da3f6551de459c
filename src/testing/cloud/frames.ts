/**
 * Binary WebSocket event types of the cloud runtime; see docs/wire-protocol.md#cloud-binary-frames.
 *
 * @example
 * encodePreview(png, 'png')[3] === BINARY_EVENT.previewImage; // first big-endian integer
 */
export const BINARY_EVENT = Object.freeze({
  /** A preview image: format, then the image bytes. */
  previewImage: 1,
  /** Text of a node: node-id length, node id, then UTF-8 text. */
  text: 3,
  /** A preview image with JSON metadata naming its prompt and node. */
  previewImageWithMetadata: 4,
});

/**
 * Preview image formats of a type-1 frame.
 *
 * @example
 * IMAGE_FORMAT.png; // 2
 */
export const IMAGE_FORMAT = Object.freeze({
  /** JPEG. */
  jpeg: 1,
  /** PNG. */
  png: 2,
});

/**
 * Metadata of a type-4 preview frame.
 *
 * @example
 * const meta: PreviewMetadata = { node_id: '3', prompt_id: 'p', display_node_id: '3', image_type: 'image/png' };
 */
export interface PreviewMetadata {
  node_id: string;
  prompt_id: string;
  display_node_id: string;
  image_type: 'image/png' | 'image/jpeg';
  parent_node_id?: string | null;
  real_node_id?: string;
}

function uint32(...values: number[]): Buffer {
  const out = Buffer.alloc(4 * values.length);
  values.forEach((value, index) => out.writeUInt32BE(value >>> 0, index * 4));
  return out;
}

/**
 * Type 1 frame: event type, image format, then the image bytes.
 *
 * @example
 * ws.send(encodePreview(pngBytes, 'png'));
 */
export function encodePreview(image: Uint8Array, format: 'png' | 'jpeg'): Buffer {
  return Buffer.concat([uint32(BINARY_EVENT.previewImage, IMAGE_FORMAT[format]), image]);
}

/**
 * Type 3 frame: event type, node-id length, node id, then UTF-8 text.
 *
 * @example
 * ws.send(encodeText('7', 'Task ID: abc'));
 */
export function encodeText(nodeId: string, text: string): Buffer {
  const id = Buffer.from(nodeId, 'utf8');
  return Buffer.concat([uint32(BINARY_EVENT.text, id.byteLength), id, Buffer.from(text, 'utf8')]);
}

/**
 * Type 4 frame: event type, JSON length, JSON metadata, then the image bytes.
 *
 * @example
 * ws.send(encodePreviewWithMetadata(pngBytes, meta));
 */
export function encodePreviewWithMetadata(image: Uint8Array, metadata: PreviewMetadata): Buffer {
  const json = Buffer.from(JSON.stringify(metadata), 'utf8');
  return Buffer.concat([uint32(BINARY_EVENT.previewImageWithMetadata, json.byteLength), json, image]);
}

/**
 * Frames a robust client must survive: an unknown binary type, a truncated binary frame,
 * a malformed JSON text frame and unknown text types (the `garbageFrames` fault).
 *
 * @example
 * for (const frame of garbageFrames()) ws.send(frame.data, { binary: frame.binary });
 */
export function garbageFrames(): { data: Buffer | string; binary: boolean }[] {
  return [
    { data: Buffer.concat([uint32(99, 7), Buffer.from('not a known event')]), binary: true },
    { data: Buffer.from([0x00, 0x01]), binary: true },
    { data: uint32(BINARY_EVENT.text, 1000), binary: true },
    { data: '{"type": "progress", "data": {"value": ', binary: false },
    { data: 'not json at all', binary: false },
    { data: JSON.stringify({ type: 'crystools.monitor', data: { cpu_utilization: 12.5 } }), binary: false },
    { data: JSON.stringify({ type: 'notification', data: { value: 'Simulated notification' } }), binary: false },
    { data: JSON.stringify({ type: 'logs', data: { entries: [{ t: 'now', m: 'log line\n' }], size: null } }), binary: false },
    { data: JSON.stringify({ type: 'executing' }), binary: false },
    { data: JSON.stringify([1, 2, 3]), binary: false },
  ];
}
