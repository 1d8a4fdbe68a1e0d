/**
 * Barcodes drawn from merge values: TX Text Control barcode pictures (a picture whose custom XML
 * part describes the symbology) and Word's MERGEBARCODE / DISPLAYBARCODE fields. Symbols are
 * drawn by bwip-js as SVG, so PDF output keeps them vector.
 */
import { createRequire } from 'node:module';
import type BwipJs from 'bwip-js';
import { InputError } from '../errors.js';
import { cssColour } from '../util/colours.js';
import { encodePng } from '../util/png.js';
import { childElements, escapeText, parseXml, textOf, type XmlElement } from '../ooxml/xml.js';
import type { DecodedImage } from './images.js';

// bwip-js is large (its symbol encoders): loaded on the first barcode, not with every merge thread.
let bwip: typeof BwipJs | undefined;
const bwipjs = () => (bwip ??= createRequire(import.meta.url)('bwip-js') as typeof BwipJs);

export interface BarcodeSpec {
  /** The bwip-js symbology. */
  bcid: string;
  /** The name the template used, for messages. */
  typeName: string;
  /** RRGGBB */
  foreground?: string;
  background?: string;
  showText: boolean;
  /** QR error correction: L, M, Q or H. */
  eclevel?: string;
}

/** TX Text Control's BarcodeType names (TXTextControl.Barcode.BarcodeType) -> bwip-js. */
const TX_TYPES: Record<string, string> = {
  qrcode: 'qrcode',
  qr: 'qrcode',
  code128: 'code128',
  code39: 'code39',
  code93: 'code93',
  code11: 'code11',
  datamatrix: 'datamatrix',
  pdf417: 'pdf417',
  micropdf: 'micropdf417',
  micropdf417: 'micropdf417',
  aztec: 'azteccode',
  azteccode: 'azteccode',
  ean13: 'ean13',
  ean8: 'ean8',
  ean: 'ean13',
  upca: 'upca',
  upce: 'upce',
  itf14: 'itf14',
  interleaved2of5: 'interleaved2of5',
  codabar: 'rationalizedCodabar',
  msi: 'msi',
  postnet: 'postnet',
  planet: 'planet',
  royalmail: 'royalmail',
  intelligentmail: 'onecode',
  maxicode: 'maxicode',
  gs1128: 'gs1-128',
  ucc128: 'gs1-128',
  isbn: 'isbn',
  telepen: 'telepen',
  plessey: 'plessey',
};

/** Word's barcode types (MS-OI29500 3.1.3.2.7) -> bwip-js. */
const WORD_TYPES: Record<string, string> = {
  qr: 'qrcode',
  code128: 'code128',
  code39: 'code39',
  jppost: 'japanpost',
  ean13: 'ean13',
  jan13: 'ean13',
  ean8: 'ean8',
  jan8: 'ean8',
  upca: 'upca',
  upce: 'upce',
  itf14: 'itf14',
  case: 'itf14',
  nw7: 'rationalizedCodabar',
};

/** `#1F2E3D`, `1F2E3D`, `0x1F2E3D`, a .NET ARGB integer (-16777216), or a CSS colour (`orange`, `#f80`, `rgb()`); `transparent`: none. */
export function parseColour(value: string | undefined): string | undefined {
  const text = value?.trim() ?? '';
  if (text === '') return undefined;
  const hex = /^(?:#|0x)?([0-9a-f]{6})$/i.exec(text) ?? /^(?:#|0x)?[0-9a-f]{2}([0-9a-f]{6})$/i.exec(text);
  if (hex) return hex[1]!.toUpperCase();
  if (/^-?\d+$/.test(text)) return ((Number(text) >>> 0) & 0xffffff).toString(16).padStart(6, '0').toUpperCase();
  return cssColour(text);
}

function localName(name: string): string {
  return name.slice(name.indexOf(':') + 1);
}

function childText(root: XmlElement, pattern: RegExp): string | undefined {
  const child = childElements(root).find((c) => pattern.test(localName(c.name)));
  return child ? textOf(child, [child.name]).trim() : undefined;
}

export interface TxBarcode {
  spec: BarcodeSpec;
  /** The custom XML part's text, whose Text element is rewritten with each value. */
  xml: string;
}

/** A TX barcode's custom XML part (`<BarcodeData_TXBarcode_3.0>`), or undefined if it is not one. */
export function readTxBarcode(xml: string, where: string): TxBarcode | undefined {
  let root: XmlElement;
  try {
    root = parseXml(xml, where).root;
  } catch {
    return undefined;
  }
  if (!/^BarcodeData/i.test(localName(root.name))) return undefined;
  const typeName = childText(root, /^BarcodeType$/i) ?? 'QRCode';
  const bcid = TX_TYPES[typeName.toLowerCase().replace(/[^a-z0-9]/g, '')];
  if (!bcid)
    throw new InputError(
      `The template's barcode type "${typeName}" (${where}) is not one docsmith draws; use QRCode, Code128, Code39, EAN13, DataMatrix, PDF417 or another listed in docs/templates.md.`,
    );
  return {
    spec: {
      bcid,
      typeName,
      foreground: parseColour(childText(root, /^(Fore|Bar|Foreground)Colou?r$/i)),
      background: parseColour(childText(root, /^(Back|Background)Colou?r$/i)),
      showText: /^(true|1)$/i.test(childText(root, /^ShowText$/i) ?? 'false'),
    },
    xml,
  };
}

/** The custom XML with its Text element holding the merged value. */
export function withTxText(xml: string, value: string): string {
  const escaped = escapeText(value);
  return xml
    .replace(/(<(?:\w+:)?Text>)[\s\S]*?(<\/(?:\w+:)?Text>)/, `$1${escaped}$2`)
    .replace(/<((?:\w+:)?Text)\s*\/>/, `<$1>${escaped}</$1>`);
}

/**
 * A MERGEBARCODE / DISPLAYBARCODE instruction's type and switches:
 * `\f`/`\b` colours, `\q` QR error correction 0-3, `\t` show the text, `\h` height in twips, `\s` scale in percent.
 */
export interface WordBarcodeSpec extends BarcodeSpec {
  heightTwips?: number;
  scalePercent?: number;
}

export function wordBarcodeSpec(
  type: string | undefined,
  switches: { name: string; value: string | undefined }[],
  field: string,
): WordBarcodeSpec {
  const bcid = WORD_TYPES[(type ?? '').toLowerCase()];
  if (!bcid)
    throw new InputError(
      `The barcode field ${field} has the type "${type ?? ''}"; use QR, CODE128, CODE39, EAN13, EAN8, JAN13, JAN8, UPCA, UPCE, ITF14, CASE, NW7 or JPPOST.`,
    );
  const value = (name: string) => switches.find((s) => s.name === name)?.value;
  const number = (name: string) => {
    const text = value(name);
    return text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined;
  };
  const q = number('q');
  return {
    bcid,
    typeName: type!.toUpperCase(),
    foreground: parseColour(value('f')),
    background: parseColour(value('b')),
    showText: switches.some((s) => s.name === 't'),
    eclevel: q === undefined ? undefined : ['L', 'M', 'Q', 'H'][Math.min(3, q)],
    heightTwips: number('h'),
    scalePercent: number('s'),
  };
}

const EMU_PER_TWIP = 635;

/** The size of a Word barcode field's picture: `\h` height (twips), `\s` scale; 2D symbols are square. */
export function wordBarcodeExtent(spec: WordBarcodeSpec, image: DecodedImage): { cx: number; cy: number } {
  const twoD = TWO_D.test(spec.bcid);
  const scale = Math.min(1000, Math.max(10, spec.scalePercent ?? 100)) / 100;
  const cy = Math.round((spec.heightTwips ?? (twoD ? 1440 : 720)) * EMU_PER_TWIP * scale);
  const cx = twoD ? cy : Math.round(cy * (image.widthPx / image.heightPx));
  return { cx, cy };
}

const TWO_D = /qrcode|datamatrix|pdf417|aztec|maxicode/;

/** 2D symbologies that carry an ECI designator: text beyond ASCII is marked as UTF-8 (ECI 26), or readers guess Latin-1 or Shift JIS. */
const ECI = /^(?:qrcode|datamatrix|azteccode|pdf417)$/;

/** What bwip-js is asked to draw for the value. */
export function barcodeOptions(value: string, spec: BarcodeSpec): BwipJs.RenderOptions {
  const twoD = TWO_D.test(spec.bcid);
  // bwip-js encodes the text as UTF-8 bytes; with parsefnc, ^ECI000026 says so, and ^^ is a caret.
  const utf8 = ECI.test(spec.bcid) && [...value].some((ch) => ch.charCodeAt(0) > 0x7f);
  return {
    bcid: spec.bcid,
    scale: 3,
    ...(utf8 ? { text: `^ECI000026${value.replace(/\^/g, '^^')}`, parsefnc: true } : { text: value }),
    ...(twoD ? {} : { height: 12, includetext: spec.showText, textxalign: 'center' }),
    ...(spec.foreground ? { barcolor: spec.foreground, textcolor: spec.foreground } : {}),
    ...(spec.background ? { backgroundcolor: spec.background } : {}),
    ...(spec.eclevel && spec.bcid === 'qrcode' ? { eclevel: spec.eclevel } : {}),
  };
}

/** A barcode as Word stores a vector picture: the SVG, and a PNG of it for the main blip (readers that show no SVG). */
export interface DrawnBarcode {
  svg: DecodedImage;
  /** None when only the office will read the document (it draws the SVG). */
  png?: DecodedImage;
}

/** Draws the value as SVG and (unless `svgOnly`) PNG pictures; a value the symbology cannot encode is the caller's 400. */
export function drawBarcode(value: string, spec: BarcodeSpec, field: string, svgOnly = false): DrawnBarcode {
  const options = barcodeOptions(value, spec);
  let svg: string;
  let png: { bytes: Buffer; width: number; height: number } | undefined;
  try {
    svg = bwipjs().toSVG(options);
    if (!svgOnly) png = drawPng(options);
  } catch (error) {
    const reason = String((error as Error).message ?? error).replace(/^bwipp\.\w+#\d+:\s*/, '');
    throw new InputError(
      `The value ${JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value)} for the barcode "${field}" cannot be drawn as ${spec.typeName}: ${reason}`,
    );
  }
  const box = /viewBox="0 0 (\d+(?:\.\d+)?) (\d+(?:\.\d+)?)"/.exec(svg);
  const widthPx = Math.max(1, Math.round(Number(box?.[1] ?? 100)));
  const heightPx = Math.max(1, Math.round(Number(box?.[2] ?? 100)));
  // A fixed size lets the picture scale to the frame it is drawn in.
  const sized = svg.replace('<svg ', `<svg width="${widthPx}" height="${heightPx}" preserveAspectRatio="none" `);
  return {
    svg: { bytes: Buffer.from(sized, 'utf8'), format: { extension: 'svg', contentType: 'image/svg+xml' }, widthPx, heightPx },
    ...(png
      ? {
          png: {
            bytes: png.bytes,
            format: { extension: 'png', contentType: 'image/png' } as const,
            widthPx: png.width,
            heightPx: png.height,
          },
        }
      : {}),
  };
}

/**
 * The symbol as a PNG, made in this call: bwip-js rasterises into the RGBA rows PNG wants (each
 * prefixed by its filter byte) and only its compression step is asynchronous, so it is done here.
 */
function drawPng(options: BwipJs.RenderOptions): { bytes: Buffer; width: number; height: number } {
  const drawing = bwipjs().drawingZlibPng() as unknown as { image(w: number, h: number): { buffer: Buffer }; end(): unknown };
  const inner = drawing.image.bind(drawing);
  let raster: { buffer: Buffer; width: number; height: number } | undefined;
  drawing.image = (width, height) => {
    const image = inner(width, height);
    raster = { buffer: image.buffer, width, height };
    return image;
  };
  drawing.end = () => undefined;
  bwipjs().render(options, drawing as never);
  if (!raster) throw new Error('the barcode was not drawn');
  const bytes = encodePng(raster.width, raster.height, raster.buffer, 4);
  return { bytes, width: raster.width, height: raster.height };
}
