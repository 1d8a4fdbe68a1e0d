import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import { initWasm, Resvg } from '@resvg/resvg-wasm';
import { InputError } from '../errors.js';

/** Draws an SVG picture as a PNG of the given size (of the picture's own aspect ratio). */
export type SvgRasteriser = (svg: Buffer, widthPx: number, heightPx: number, what: string) => Buffer;

/** The longest side of a picture's PNG stand-in: sharp when printed at its size, bounded in memory. */
export const MAX_RASTER_PX = 2048;

/**
 * The size of an SVG picture's PNG stand-in for a picture shown at cx x cy EMU: twice the
 * displayed size at 96 dpi (9525 EMU a pixel), within MAX_RASTER_PX.
 */
export function rasterSize(cx: number, cy: number): { widthPx: number; heightPx: number } {
  const fit = Math.min(2, MAX_RASTER_PX / Math.max(cx / 9525, cy / 9525));
  return { widthPx: Math.max(1, Math.round((cx / 9525) * fit)), heightPx: Math.max(1, Math.round((cy / 9525) * fit)) };
}

/**
 * The blip extension that holds a vector picture beside its raster main blip, as Word writes it
 * (MS-ODRAWXML asvg:svgBlip): Word shows only raster main blips, and shows the SVG from here.
 */
export const svgBlipExtension = (svgRelId: string): string =>
  '<a:ext uri="{96DAC541-7B7A-43D3-8B79-37D633B846F1}">' +
  `<asvg:svgBlip xmlns:asvg="http://schemas.microsoft.com/office/drawing/2016/SVG/main" r:embed="${svgRelId}"/></a:ext>`;

/** Fonts for text in SVG pictures, the first found (the office's metric-compatible ones). */
const FONT_FILES = [
  '/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf',
  '/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf',
  '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf',
];

let ready: Promise<Uint8Array[]> | undefined;

/**
 * Word shows an SVG only from the asvg:svgBlip extension, over a raster main picture; this draws
 * that raster with resvg compiled to WebAssembly: it has no file system and no network, so an
 * SVG cannot make it read a file or fetch a URL (pictures it links are simply not drawn).
 * Loaded on first need, once per thread: most merges have no SVG.
 */
export async function loadSvgRasteriser(): Promise<SvgRasteriser> {
  ready ??= (async () => {
    await initWasm(await fs.readFile(createRequire(import.meta.url).resolve('@resvg/resvg-wasm/index_bg.wasm')));
    for (const file of FONT_FILES) {
      const font = await fs.readFile(file).catch(() => undefined);
      if (font) return [new Uint8Array(font)];
    }
    return [];
  })();
  const fontBuffers = await ready;
  return (svg, widthPx, heightPx, what) => {
    let drawn: Uint8Array;
    try {
      // The size was fitted to the picture's own aspect ratio (merge/images.ts fitExtent): its width decides.
      const resvg = new Resvg(svg, { font: { fontBuffers }, fitTo: { mode: 'width', value: widthPx } });
      const image = resvg.render();
      drawn = image.asPng();
      image.free();
      resvg.free();
    } catch {
      throw new InputError(`${what} is an SVG image that cannot be drawn (it is damaged or uses what SVG readers do not support).`);
    }
    return Buffer.from(drawn.buffer, drawn.byteOffset, drawn.byteLength);
  };
}

/** Whether a merge value is (Base64 of) an SVG image: the merge then needs the rasteriser. */
export function looksLikeSvg(value: string): boolean {
  if (value.length < 16) return false;
  // A data URI anywhere: an HTML value's <img> too.
  if (/data:image\/svg/i.test(value)) return true;
  if (!/^[A-Za-z0-9+/]{16}/.test(value)) return false;
  return /^(?:\uFEFF)?\s*<(?:\?xml|svg|!--|!DOCTYPE)/i.test(Buffer.from(value.slice(0, 64), 'base64').toString('utf8'));
}

/** Whether any string in merge data is an SVG image. */
export function holdsSvg(value: unknown): boolean {
  if (typeof value === 'string') return looksLikeSvg(value);
  if (Array.isArray(value)) return value.some(holdsSvg);
  if (value && typeof value === 'object') return Object.values(value).some(holdsSvg);
  return false;
}
