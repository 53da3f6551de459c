/**
 * A few bytes shaped like an MP4 file (an `ftyp` box then an empty `mdat`), for fake video results.
 *
 * @example
 * const video = fakeMp4();
 */
export function fakeMp4(): Uint8Array {
  const ftyp = Buffer.alloc(24);
  ftyp.writeUInt32BE(24, 0);
  ftyp.write('ftypisom', 4, 'latin1');
  ftyp.writeUInt32BE(0x200, 12);
  ftyp.write('isomiso2', 16, 'latin1');
  const mdat = Buffer.alloc(8);
  mdat.writeUInt32BE(8, 0);
  mdat.write('mdat', 4, 'latin1');
  return Buffer.concat([ftyp, mdat]);
}
