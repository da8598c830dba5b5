/**
 * Pixel size of an encoded image from its header: PNG (IHDR, PNG spec §11.2.2),
 * JPEG (the first SOFn marker, ITU T.81 §B.2.2) and WebP (RFC 9649: the
 * `VP8 ` key frame header, the `VP8L` image header, or the `VP8X` canvas size).
 */

export type ImageFormat = 'png' | 'jpeg' | 'webp';

/**
 * `{width, height}` in pixels of `image`, and which format its magic bytes
 * say it is; undefined when the header is none of the three or is cut short.
 */
export function imageSize(image: Buffer): { format: ImageFormat; width: number; height: number } | undefined {
  if (image.length >= 24 && image.readUInt32BE(0) === 0x89504e47 && image.toString('latin1', 12, 16) === 'IHDR') {
    return { format: 'png', width: image.readUInt32BE(16), height: image.readUInt32BE(20) };
  }
  if (image.length >= 4 && image[0] === 0xff && image[1] === 0xd8) return jpegSize(image);
  if (image.length >= 30 && image.toString('latin1', 0, 4) === 'RIFF' && image.toString('latin1', 8, 12) === 'WEBP') return webpSize(image);
  return undefined;
}

function jpegSize(image: Buffer): { format: 'jpeg'; width: number; height: number } | undefined {
  let pos = 2;
  while (pos + 9 <= image.length) {
    if (image[pos] !== 0xff) return undefined;
    const marker = image[pos + 1]!;
    if (marker === 0xff) {
      pos += 1; // fill byte
      continue;
    }
    // SOF0..SOF15 carry the frame size, except DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { format: 'jpeg', height: image.readUInt16BE(pos + 5), width: image.readUInt16BE(pos + 7) };
    }
    pos += 2 + image.readUInt16BE(pos + 2);
  }
  return undefined;
}

function webpSize(image: Buffer): { format: 'webp'; width: number; height: number } | undefined {
  const chunk = image.toString('latin1', 12, 16);
  if (chunk === 'VP8X') return { format: 'webp', width: 1 + image.readUIntLE(24, 3), height: 1 + image.readUIntLE(27, 3) };
  if (chunk === 'VP8L' && image[20] === 0x2f) {
    const bits = image.readUInt32LE(21);
    return { format: 'webp', width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8 ' && image[23] === 0x9d && image[24] === 0x01 && image[25] === 0x2a) {
    return { format: 'webp', width: image.readUInt16LE(26) & 0x3fff, height: image.readUInt16LE(28) & 0x3fff };
  }
  return undefined;
}
