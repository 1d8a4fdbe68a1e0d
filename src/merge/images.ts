import { createHash } from 'node:crypto';
import { imageSize } from 'image-size';
import { InputError } from '../errors.js';
import { listToken, type ListRequest } from './lists.js';
import { svgBlipExtension } from '../render/svg.js';
import type { JsonObject } from './scope.js';

export interface ImageFormat {
  extension: string;
  contentType: string;
}

const FORMATS: Record<string, ImageFormat> = {
  png: { extension: 'png', contentType: 'image/png' },
  jpg: { extension: 'jpeg', contentType: 'image/jpeg' },
  gif: { extension: 'gif', contentType: 'image/gif' },
  bmp: { extension: 'bmp', contentType: 'image/bmp' },
  svg: { extension: 'svg', contentType: 'image/svg+xml' },
};

export interface DecodedImage {
  bytes: Buffer;
  format: ImageFormat;
  widthPx: number;
  heightPx: number;
}

/** A merge value as an image: Base64 or a data: URI of PNG, JPEG, GIF, BMP or SVG. */
export function decodeImage(value: string, field: string): DecodedImage {
  const base64 = value.replace(/^data:[^;,]*;base64,/i, '').replace(/\s+/g, '');
  const invalid = () => new InputError(`The value for the image "${field}" is not a PNG, JPEG, GIF, BMP or SVG image in Base64.`);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64) || base64.length < 8) throw invalid();
  const bytes = Buffer.from(base64, 'base64');
  let size: { width?: number; height?: number; type?: string };
  try {
    size = imageSize(bytes);
  } catch {
    throw invalid();
  }
  const format = FORMATS[size.type ?? ''];
  if (!format || !size.width || !size.height) throw invalid();
  return { bytes, format, widthPx: size.width, heightPx: size.height };
}

const EMU_PER_PIXEL = 9525; // at 96 dpi

/** Fits the image to the placeholder's width, keeping its aspect ratio, never enlarging it. */
export function fitExtent(image: DecodedImage, placeholder: { cx: number; cy: number }): { cx: number; cy: number } {
  const naturalCx = image.widthPx * EMU_PER_PIXEL;
  const naturalCy = image.heightPx * EMU_PER_PIXEL;
  const scale = Math.min(1, placeholder.cx / naturalCx);
  return { cx: Math.max(1, Math.round(naturalCx * scale)), cy: Math.max(1, Math.round(naturalCy * scale)) };
}

/**
 * The picture markup with its blip (the one showing `embed`) pointed at a raster image and, when
 * given, at an SVG through the svgBlip extension (an earlier one is replaced).
 */
export function pointBlip(xml: string, embed: string, rasterRelId: string, svgRelId?: string): string {
  return xml.replace(
    new RegExp(`<a:blip\\b([^>]*?)\\br:embed="${embed.replace(/[^\w-]/g, '')}"([^>]*?)(/>|>([\\s\\S]*?)</a:blip>)`),
    (_all, before: string, after: string, _end: string, inner: string | undefined) => {
      let content = (inner ?? '').replace(/<a:ext\b[^>]*uri="\{96DAC541-7B7A-43D3-8B79-37D633B846F1\}"[^>]*>[\s\S]*?<\/a:ext>/g, '');
      if (svgRelId) {
        content = content.includes('</a:extLst>')
          ? content.replace('</a:extLst>', `${svgBlipExtension(svgRelId)}</a:extLst>`)
          : `${content}<a:extLst>${svgBlipExtension(svgRelId)}</a:extLst>`;
      }
      content = content.replace('<a:extLst></a:extLst>', '');
      const open = `<a:blip${before}r:embed="${rasterRelId}"${after}`;
      return content ? `${open}>${content}</a:blip>` : `${open}/>`;
    },
  );
}

/** An inline picture (w:drawing) showing the related image at the given size in EMU; `svgRelId`: its vector original. */
export function inlinePicture(relId: string, cx: number, cy: number, id: number, name: string, svgRelId?: string): string {
  return (
    `<w:drawing><wp:inline xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"><wp:extent cx="${cx}" cy="${cy}"/><wp:docPr id="${id}" name="${name}"/>` +
    '<a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture">' +
    `<pic:nvPicPr><pic:cNvPr id="${id}" name="image"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" r:embed="${relId}"${svgRelId ? `><a:extLst>${svgBlipExtension(svgRelId)}</a:extLst></a:blip>` : '/>'}<a:stretch><a:fillRect/></a:stretch></pic:blipFill>` +
    `<pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="${cx}" cy="${cy}"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing>`
  );
}

export interface MediaPart {
  part: string;
  relId: string;
  bytes: Buffer;
  format: ImageFormat;
}

/**
 * What merged values add to one output document beyond text: media (stored once per content and
 * related from each part using it), hyperlinks, and the lists of HTML values.
 */
/** A chart of one block repetition (merge/charts.ts copyChart). */
export interface ChartRequest {
  relId: string;
  templateRelId: string;
  name: string;
  rows: JsonObject[];
}

export class MediaSink {
  private readonly byHash = new Map<string, string>();
  private readonly relations = new Map<string, Map<string, MediaPart>>();
  private count = 0;

  add(sourcePart: string, image: DecodedImage): string {
    const hash = createHash('sha256').update(image.bytes).digest('hex');
    let part = this.byHash.get(hash);
    if (!part) {
      part = `word/media/docsmith-${++this.count}.${image.format.extension}`;
      this.byHash.set(hash, part);
    }
    const relations = this.relations.get(sourcePart) ?? new Map<string, MediaPart>();
    this.relations.set(sourcePart, relations);
    const existing = relations.get(part);
    if (existing) return existing.relId;
    const relId = `rIdDocsmith${relations.size + 1}`;
    relations.set(part, { part, relId, bytes: image.bytes, format: image.format });
    return relId;
  }

  private readonly links = new Map<string, Map<string, string>>();

  /** An external hyperlink from a part; returns its relationship id. */
  addLink(sourcePart: string, url: string): string {
    const links = this.links.get(sourcePart) ?? new Map<string, string>();
    this.links.set(sourcePart, links);
    let id = links.get(url);
    if (!id) {
      id = `rIdDocsmithLink${links.size + 1}`;
      links.set(url, id);
    }
    return id;
  }

  private readonly customXml = new Map<string, { part: string; relId: string; xml: string }[]>();

  /** A custom XML part related from a part (a TX barcode's description, one per drawn barcode). */
  addCustomXml(sourcePart: string, xml: string): string {
    const list = this.customXml.get(sourcePart) ?? [];
    this.customXml.set(sourcePart, list);
    const n = [...this.customXml.values()].reduce((sum, l) => sum + l.length, 0) + 1;
    const entry = { part: `customXml/docsmith-item${n}.xml`, relId: `rIdDocsmithXml${list.length + 1}`, xml };
    list.push(entry);
    return entry.relId;
  }

  customXmlEntries(): [string, { part: string; relId: string; xml: string }[]][] {
    return [...this.customXml];
  }

  private readonly charts = new Map<string, ChartRequest[]>();

  /** A copy of the template's chart (related from `sourcePart` as `templateRelId`) showing `rows`; returns the copy's relationship id. */
  addChart(sourcePart: string, templateRelId: string, name: string, rows: JsonObject[]): string {
    const list = this.charts.get(sourcePart) ?? [];
    this.charts.set(sourcePart, list);
    const relId = `rIdDocsmithChart${list.length + 1}`;
    list.push({ relId, templateRelId, name, rows });
    return relId;
  }

  chartEntries(): [string, ChartRequest[]][] {
    return [...this.charts];
  }

  private readonly lists: ListRequest[] = [];

  /** A list of an HTML value; its paragraphs carry the returned token until the numId is known. */
  addList(ordered: boolean, level: number): string {
    this.lists.push({ ordered, level });
    return listToken(this.lists.length);
  }

  listRequests(): ListRequest[] {
    return [...this.lists];
  }

  linkEntries(): [string, [string, string][]][] {
    return [...this.links].map(([source, map]) => [source, [...map]]);
  }

  /** Media related from each source part. */
  entries(): [string, MediaPart[]][] {
    return [...this.relations].map(([source, map]) => [source, [...map.values()]]);
  }
}
