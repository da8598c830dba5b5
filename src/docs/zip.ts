/**
 * A ZIP archive of a few in-memory files (APPNOTE.TXT, PKWARE's .ZIP File Format Specification, 4.3): local file
 * headers, deflated data (method 8) and the central directory, no ZIP64, no extra fields, names in UTF-8 (bit 11).
 * Every entry carries the same timestamp, 1980-01-01 00:00, so the same files give the same bytes. Used for the
 * .mcpb bundle (src/docs/installFiles.ts); node:zlib does the deflate and the CRC-32.
 */
import { crc32, deflateRawSync } from 'node:zlib';

/** One file of the archive: its path inside the archive (forward slashes) and its bytes. */
export interface ZipEntry {
  name: string;
  data: Buffer;
}

/** DOS date of 1980-01-01 (year 0 since 1980, month 1, day 1); DOS time 00:00:00 is 0. */
const DOS_DATE = (0 << 9) | (1 << 5) | 1;
/** General purpose bit 11: the name is UTF-8. */
const UTF8 = 0x0800;

/**
 * The archive's bytes.
 * @throws Error when there are 65,535 entries or more, or an entry is 4 GiB or more (ZIP64 would be needed).
 */
export function zip(entries: readonly ZipEntry[]): Buffer {
  if (entries.length >= 0xffff) throw new Error('zip: too many entries for a ZIP without ZIP64');
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const { name, data } of entries) {
    if (data.length >= 0xffffffff) throw new Error(`zip: ${name} is too large for a ZIP without ZIP64`);
    const fileName = Buffer.from(name, 'utf8');
    const packed = deflateRawSync(data, { level: 9 });
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0); // local file header signature
    local.writeUInt16LE(20, 4); // version needed to extract: 2.0 (deflate)
    local.writeUInt16LE(UTF8, 6);
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt16LE(0, 10); // time
    local.writeUInt16LE(DOS_DATE, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(fileName.length, 26);
    local.writeUInt16LE(0, 28); // extra field length
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0); // central directory header signature
    central.writeUInt16LE((3 << 8) | 20, 4); // made by: UNIX, 2.0
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(UTF8, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(DOS_DATE, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(fileName.length, 28);
    // extra, comment, disk number, internal attributes: 0
    central.writeUInt32LE((0o100644 << 16) >>> 0, 38); // external attributes: a regular file, rw-r--r--
    central.writeUInt32LE(offset, 42);
    locals.push(local, fileName, packed);
    centrals.push(central, fileName);
    offset += local.length + fileName.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0); // end of central directory signature
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
