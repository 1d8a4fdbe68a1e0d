import { InputError } from '../../errors.js';
import type { ImageFormat } from '../../render/encode.js';
import type { ThumbnailRequest } from '../../render/thumbnails.js';

const FORMATS: Record<string, ImageFormat> = { png: 'png', jpg: 'jpg', jpeg: 'jpg', gif: 'gif', bmp: 'bmp' };

function integer(value: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!/^-?\d+$/.test(value.trim())) throw new InputError(`${name} must be a whole number, not "${value}".`);
  const n = Number(value);
  if (n < min || n > max) throw new InputError(`${name} must be from ${min} to ${max}, not ${n}.`);
  return n;
}

export function parseThumbnailRequest(query: Record<string, string | undefined>): ThumbnailRequest {
  const formatName = (query.imageFormat ?? 'png').trim().toLowerCase();
  const format = FORMATS[formatName];
  if (!format) throw new InputError(`imageFormat "${query.imageFormat}" is not supported; choose PNG, JPG, GIF or BMP.`);
  return {
    zoom: integer(query.zoomFactor, 'zoomFactor', 100, 1, 400),
    fromPage: integer(query.fromPage, 'fromPage', 1, 1, 1_000_000),
    toPage: integer(query.toPage, 'toPage', 0, 0, 1_000_000),
    format,
  };
}
