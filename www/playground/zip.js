// A zip archive of a few files, stored without compression (method 0): what "Download model"
// saves, a model folder that unzips into the folder every command and the page open. Store-only
// keeps it small and exact: the weights barely compress, and any unzip tool reads method 0.
// Layout (PKWARE APPNOTE 4.3): a local header and the bytes of each file, then the central
// directory (a header per file) and its end record. Names are UTF-8 (flag bit 11).

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** The CRC-32 of `bytes` (a Uint8Array), as zip and PNG compute it. */
export function crc32(bytes) {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** Little-endian fields, written one after another: [[bytes, value], …] → a Uint8Array. */
function fields(list) {
  const out = new Uint8Array(list.reduce((sum, [size]) => sum + size, 0));
  const view = new DataView(out.buffer);
  let at = 0;
  for (const [size, value] of list) {
    if (size === 2) view.setUint16(at, value, true);
    else view.setUint32(at, value, true);
    at += size;
  }
  return out;
}

/** DOS date and time of 1980-01-01 00:00: a fixed stamp, so the same files make the same archive. */
const DOS_TIME = 0;
const DOS_DATE = (0 << 9) | (1 << 5) | 1;
/** Bit 11: the names are UTF-8. */
const UTF8 = 0x0800;

/** `files` ([{ name, bytes }], names with '/' for folders) as the bytes of a zip archive: a Blob. */
export function zipBlob(files) {
  const encoder = new TextEncoder();
  const parts = [];
  const central = [];
  let offset = 0;
  for (const { name, bytes } of files) {
    const nameBytes = encoder.encode(name);
    const crc = crc32(bytes);
    // version, flags, method, time, date, crc, compressed size, size, name length, extra length
    const common = [
      [2, UTF8],
      [2, 0],
      [2, DOS_TIME],
      [2, DOS_DATE],
      [4, crc],
      [4, bytes.length],
      [4, bytes.length],
      [2, nameBytes.length],
      [2, 0],
    ];
    const local = fields([[4, 0x04034b50], [2, 20], ...common]);
    parts.push(local, nameBytes, bytes);
    // made by, needed, …, comment length, disk, internal and external attributes, local header offset
    central.push(fields([[4, 0x02014b50], [2, 20], [2, 20], ...common, [2, 0], [2, 0], [2, 0], [4, 0], [4, offset]]), nameBytes);
    offset += local.length + nameBytes.length + bytes.length;
  }
  const size = central.reduce((sum, part) => sum + part.length, 0);
  const end = fields([
    [4, 0x06054b50],
    [2, 0],
    [2, 0],
    [2, files.length],
    [2, files.length],
    [4, size],
    [4, offset],
    [2, 0],
  ]);
  return new Blob([...parts, ...central, end], { type: 'application/zip' });
}
