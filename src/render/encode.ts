import gifenc from 'gifenc';

// gifenc is CommonJS: its functions come off the default export.
const { GIFEncoder, applyPalette, quantize } = gifenc;

/** Image formats thumbnails can be written in. */
export type ImageFormat = 'png' | 'jpg' | 'gif' | 'bmp';

export interface RgbImage {
  width: number;
  height: number;
  /** RGB, 3 bytes a pixel, rows without padding. */
  pixels: Uint8Array;
}

/** GIF: 256 colours quantised from the page (gifenc). */
export function encodeGif(image: RgbImage): Uint8Array {
  const rgba = new Uint8Array(image.width * image.height * 4);
  for (let i = 0, j = 0; i < image.pixels.length; i += 3, j += 4) {
    rgba[j] = image.pixels[i]!;
    rgba[j + 1] = image.pixels[i + 1]!;
    rgba[j + 2] = image.pixels[i + 2]!;
    rgba[j + 3] = 255;
  }
  const palette = quantize(rgba, 256);
  const gif = GIFEncoder();
  gif.writeFrame(applyPalette(rgba, palette), image.width, image.height, { palette });
  gif.finish();
  return gif.bytes();
}

/** BMP: 24 bits a pixel, top-down rows padded to 4 bytes (the format is a header and rows). */
export function encodeBmp(image: RgbImage): Uint8Array {
  const { width, height, pixels } = image;
  const rowBytes = Math.ceil((width * 3) / 4) * 4;
  const size = 54 + rowBytes * height;
  const out = Buffer.alloc(size);
  out.write('BM', 0, 'latin1');
  out.writeUInt32LE(size, 2);
  out.writeUInt32LE(54, 10);
  out.writeUInt32LE(40, 14);
  out.writeInt32LE(width, 18);
  out.writeInt32LE(-height, 22); // negative: rows from the top
  out.writeUInt16LE(1, 26);
  out.writeUInt16LE(24, 28);
  out.writeUInt32LE(rowBytes * height, 34);
  out.writeInt32LE(3780, 38); // 96 dpi in pixels per metre
  out.writeInt32LE(3780, 42);
  for (let y = 0; y < height; y++) {
    const row = 54 + y * rowBytes;
    for (let x = 0; x < width; x++) {
      const from = (y * width + x) * 3;
      out[row + x * 3] = pixels[from + 2]!;
      out[row + x * 3 + 1] = pixels[from + 1]!;
      out[row + x * 3 + 2] = pixels[from]!;
    }
  }
  return out;
}
