/**
 * A DOCX (a merged or converted document) as a TX document model, for writing TX (write.ts): the
 * inverse of docx.ts for what TX templates hold: paragraphs with alignment, spacing, line spacing,
 * keep-with-next and left tab stops; runs with face, size, bold, italic, underline, strike, colour
 * and background; Word fields and hyperlinks; bookmarks as marked ranges; tables (nested too) with
 * widths, borders, border colours, distances, shading and header rows; tracked insertions; the
 * page; a header and a footer, and the first page's own. Anything else in the document is a 400 that names it: TX output
 * never drops content silently.
 */
import path from 'node:path';
import { InputError } from '../../errors.js';
import { OoxmlPackage } from '../../ooxml/package.js';
import { attr, parseXml, type XmlElement, type XmlNode } from '../../ooxml/xml.js';
import type {
  Colour,
  TxCell,
  TxCellFormat,
  TxChange,
  TxCharFormat,
  TxDocument,
  TxField,
  TxFileKept,
  TxFrame,
  TxFormField,
  TxMark,
  TxPage,
  TxParaFormat,
  TxParagraph,
  TxPicture,
  TxProtection,
  TxRegion,
  TxRun,
  TxSignatureBox,
  TxStory,
  TxTable,
} from './read.js';
import { isLinkAddress, pictureTypeOf } from './read.js';
import { SIGNATURE_BOX_NAME } from './docx.js';

export class TxOutputError extends InputError {
  constructor(what: string) {
    super(`returnFormat TX cannot hold ${what}; choose DOCX (or PDF, RTF, ...) for this document.`);
  }
}

const REL_HEADER = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/header';
const REL_FOOTER = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/footer';
const REL_IMAGE = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/image';
/** Word's legacy form fields by instruction, as TX's kinds. */
const FORM_INSTRUCTIONS: Record<string, TxFormField['kind']> = {
  FORMTEXT: 'text',
  FORMDROPDOWN: 'dropdown',
  FORMCHECKBOX: 'checkbox',
};
const PICTURE_URI = 'http://schemas.openxmlformats.org/drawingml/2006/picture';
/** Word 2010's shapes: a text box in line with the text is one. */
const SHAPE_URI = 'http://schemas.microsoft.com/office/word/2010/wordprocessingShape';

/** The first element of this name under `node`, depth first. */
function descendant(node: XmlElement, name: string): XmlElement | undefined {
  for (const item of node.children) {
    if (item.kind !== 'element') continue;
    if (item.name === name) return item;
    const found = descendant(item, name);
    if (found) return found;
  }
  return undefined;
}
/** A relative address as TX keeps it: Word escapes its spaces (formats/tx/docx.ts). */
const decodeRelative = (address: string): string => (/^[a-z][a-z0-9+.-]*:/i.test(address) ? address : address.replace(/%20/g, ' '));

const children = (node: XmlElement | undefined, name?: string): XmlElement[] =>
  (node?.children ?? []).filter((c): c is XmlElement => c.kind === 'element' && (name === undefined || c.name === name));
const child = (node: XmlElement | undefined, name: string): XmlElement | undefined => children(node, name)[0];
const val = (node: XmlElement | undefined, name = 'w:val'): string | undefined => (node ? attr(node, name) : undefined);
const number = (value: string | undefined, fallback = 0): number => {
  const n = value === undefined ? NaN : Number(value);
  return Number.isFinite(n) ? Math.round(n) : fallback;
};
/** An on/off property: present and not false. */
const on = (node: XmlElement | undefined): boolean | undefined =>
  node === undefined ? undefined : !['false', '0', 'off'].includes(val(node) ?? 'true');

/** Run properties as the model has them, each optional until resolved. */
interface RunLook {
  face?: string;
  halfPoints?: number;
  bold?: boolean;
  italic?: boolean;
  underline?: boolean;
  strike?: boolean;
  colour?: Colour;
  background?: Colour;
}

const hex = (value: string | undefined): Colour | undefined =>
  value === undefined ? undefined : /^[0-9A-Fa-f]{6}$/.test(value) ? value.toUpperCase() : null;

function runLook(rPr: XmlElement | undefined): RunLook {
  if (!rPr) return {};
  const fonts = child(rPr, 'w:rFonts');
  const u = child(rPr, 'w:u');
  const sz = child(rPr, 'w:sz');
  const shd = child(rPr, 'w:shd');
  const highlight = child(rPr, 'w:highlight');
  if (highlight && val(highlight) !== 'none') throw new TxOutputError('highlighted text (only a shading colour)');
  for (const name of ['w:vertAlign', 'w:caps', 'w:smallCaps', 'w:dstrike', 'w:outline', 'w:shadow', 'w:emboss', 'w:imprint', 'w:vanish'])
    if (on(child(rPr, name)) && val(child(rPr, name)) !== 'baseline') throw new TxOutputError(`text with ${name.slice(2)} set`);
  const look: RunLook = {};
  const face = fonts && (val(fonts, 'w:ascii') ?? val(fonts, 'w:hAnsi'));
  if (face) look.face = face;
  if (sz) look.halfPoints = number(val(sz), 20);
  const flags: [keyof RunLook, string][] = [
    ['bold', 'w:b'],
    ['italic', 'w:i'],
    ['strike', 'w:strike'],
  ];
  for (const [key, name] of flags) {
    const state = on(child(rPr, name));
    if (state !== undefined) (look as Record<string, unknown>)[key] = state;
  }
  if (u) look.underline = val(u) !== 'none';
  const colour = hex(val(child(rPr, 'w:color')));
  if (colour !== undefined) look.colour = colour;
  const fill = hex(shd && val(shd, 'w:fill'));
  if (fill !== undefined) look.background = fill;
  return look;
}

/** Paragraph properties as the model has them. */
interface ParaLook {
  alignment?: TxParaFormat['alignment'];
  keepNext?: boolean;
  spaceBefore?: number;
  spaceAfter?: number;
  lineSpacing?: number;
  atLeast?: number;
  tabs?: number[];
  rightTabs?: number[];
  decimalTabs?: number[];
  keepLines?: boolean;
  indent?: { left: number; right: number; firstLine: number } | undefined;
}

function paraLook(pPr: XmlElement | undefined): ParaLook {
  if (!pPr) return {};
  if (child(pPr, 'w:numPr')) throw new TxOutputError('numbered or bulleted lists');
  if (child(pPr, 'w:framePr')) throw new TxOutputError('text frames');
  const ind = child(pPr, 'w:ind');
  // Indents TX keeps: left, right, first line or hanging; indents in characters it has no form for.
  const kept = new Set(['w:left', 'w:start', 'w:right', 'w:end', 'w:firstLine', 'w:hanging']);
  if (ind && ind.attrs.some(([name, value]) => !kept.has(name) && number(value) !== 0))
    throw new TxOutputError('character-measured paragraph indents');
  if (child(pPr, 'w:pBdr')) throw new TxOutputError('paragraph borders');
  const look: ParaLook = {};
  if (ind) {
    const left = number(val(ind, 'w:left') ?? val(ind, 'w:start'), 0);
    const right = number(val(ind, 'w:right') ?? val(ind, 'w:end'), 0);
    const hanging = number(val(ind, 'w:hanging'), 0);
    const firstLine = hanging ? -hanging : number(val(ind, 'w:firstLine'), 0);
    if (left < 0 || right < 0 || left > 31680 || right > 31680 || Math.abs(firstLine) > 31680 || left + firstLine < 0)
      throw new TxOutputError(`paragraph indents of ${left}, ${right} and ${firstLine} twips`);
    look.indent = left || right || firstLine ? { left, right, firstLine } : undefined;
  }
  const jc = val(child(pPr, 'w:jc'));
  if (jc !== undefined) {
    const alignment = (
      { left: 'left', start: 'left', right: 'right', end: 'right', center: 'center', both: 'both', distribute: 'both' } as const
    )[jc as 'left'];
    if (!alignment) throw new TxOutputError(`paragraphs aligned "${jc}"`);
    look.alignment = alignment;
  }
  const keepNext = on(child(pPr, 'w:keepNext'));
  if (keepNext !== undefined) look.keepNext = keepNext;
  const keepLines = on(child(pPr, 'w:keepLines'));
  if (keepLines !== undefined) look.keepLines = keepLines;
  const spacing = child(pPr, 'w:spacing');
  if (spacing) {
    if (val(spacing, 'w:before') !== undefined) look.spaceBefore = number(val(spacing, 'w:before'));
    if (val(spacing, 'w:after') !== undefined) look.spaceAfter = number(val(spacing, 'w:after'));
    const line = val(spacing, 'w:line');
    if (line !== undefined) {
      const rule = val(spacing, 'w:lineRule') ?? 'auto';
      if (rule !== 'auto' && rule !== 'atLeast')
        throw new TxOutputError(`line spacing "${rule}" (only a multiple of single spacing or at least a height)`);
      if (rule === 'atLeast') {
        look.atLeast = number(line, 240);
        look.lineSpacing = 100;
      } else {
        look.lineSpacing = Math.round((number(line, 240) / 240) * 100);
        delete look.atLeast;
      }
    }
  }
  const tabs = child(pPr, 'w:tabs');
  if (tabs) {
    const stops = children(tabs, 'w:tab').filter((tab) => val(tab) !== 'clear');
    if (
      stops.some(
        (tab) => !['left', 'start', 'right', 'end', 'decimal'].includes(val(tab) ?? '') || (val(tab, 'w:leader') ?? 'none') !== 'none',
      )
    )
      throw new TxOutputError('tab stops other than plain left, decimal and right ones');
    const at = (aligns: string[]) =>
      stops
        .filter((tab) => aligns.includes(val(tab) ?? ''))
        .map((tab) => number(val(tab, 'w:pos')))
        .sort((a, b) => a - b);
    look.tabs = at(['left', 'start']);
    const right = at(['right', 'end']);
    if (right.length) look.rightTabs = right;
    else delete look.rightTabs;
    const decimal = at(['decimal']);
    if (decimal.length) look.decimalTabs = decimal;
    else delete look.decimalTabs;
  }
  return look;
}

/** Styles with their run and paragraph looks, inheriting along basedOn. */
class Styles {
  private readonly byId = new Map<string, XmlElement>();
  readonly runDefaults: RunLook;
  readonly paraDefaults: ParaLook;

  constructor(xml: string | undefined) {
    const root = xml ? parseXml(xml, 'word/styles.xml').root : undefined;
    for (const style of children(root, 'w:style')) {
      const id = val(style, 'w:styleId');
      if (id) this.byId.set(id, style);
    }
    const defaults = child(root, 'w:docDefaults');
    this.runDefaults = runLook(child(child(defaults, 'w:rPrDefault'), 'w:rPr'));
    this.paraDefaults = paraLook(child(child(defaults, 'w:pPrDefault'), 'w:pPr'));
  }

  private chain(id: string | undefined): XmlElement[] {
    const out: XmlElement[] = [];
    for (let at = id, guard = 0; at && guard < 20; guard++) {
      const style = this.byId.get(at);
      if (!style) break;
      out.unshift(style);
      at = val(child(style, 'w:basedOn'));
    }
    return out;
  }

  paragraph(id: string | undefined): { para: ParaLook; run: RunLook } {
    const styles = this.chain(id ?? this.defaultParagraph());
    return {
      para: Object.assign({}, ...styles.map((s) => paraLook(child(s, 'w:pPr')))) as ParaLook,
      run: Object.assign({}, ...styles.map((s) => runLook(child(s, 'w:rPr')))) as RunLook,
    };
  }

  run(id: string | undefined): RunLook {
    return Object.assign({}, ...this.chain(id).map((s) => runLook(child(s, 'w:rPr')))) as RunLook;
  }

  private defaultParagraph(): string | undefined {
    for (const [id, style] of this.byId)
      if (val(style, 'w:type') === 'paragraph' && ['1', 'true', 'on'].includes(val(style, 'w:default') ?? '')) return id;
    return undefined;
  }
}

/** The index of `value` in `list`, added once: formats are shared by every run, paragraph or cell that looks the same. */
function intern<T>(list: T[], keys: Map<string, number>, value: T): number {
  const key = JSON.stringify(value);
  let index = keys.get(key);
  if (index === undefined) {
    index = list.push(value) - 1;
    keys.set(key, index);
  }
  return index;
}

/** A paragraph with no text, field or mark in it. */
function isEmptyParagraph(p: XmlElement): boolean {
  return !children(p).some((c) => c.name !== 'w:pPr');
}

/**
 * Splits a field instruction into TX's tokens: the field type, its arguments, and each switch with
 * its argument as one token, quotes kept (`MERGEFIELD`, `total`, `\\# "$#,###.00"`).
 */
export function instructionTokens(instruction: string): string[] {
  const tokens: string[] = [];
  let inSwitch = false;
  for (const match of instruction.matchAll(/"(?:[^"\\]|\\.)*"|\S+/g)) {
    const piece = match[0];
    if (piece.startsWith('\\')) {
      tokens.push(piece);
      inSwitch = true;
    } else if (inSwitch) tokens[tokens.length - 1] += ` ${piece}`;
    else tokens.push(piece);
  }
  return tokens;
}

/** Builds one story: its text, runs, paragraphs, tables, fields, marks and changes, formats de-duplicated. */
class StoryBuilder {
  text = '';
  readonly runs: TxRun[] = [];
  readonly charFormats: TxCharFormat[] = [];
  readonly paragraphs: TxParagraph[] = [];
  readonly paraFormats: TxParaFormat[] = [];
  readonly tables: TxTable[] = [];
  readonly cellFormats: TxCellFormat[] = [];
  readonly fields = new Map<number, TxField>();
  readonly marks: TxMark[] = [];
  readonly changes: TxChange[] = [];
  readonly regions: TxRegion[] = [];
  readonly pictures: TxPicture[] = [];
  /** Signature boxes and floating text frames (formats/tx/docx.ts writes them as floating drawings), anchored where they stand. */
  readonly frames: TxFrame[] = [];
  private readonly openRegions = new Map<number, number>();
  private readonly formatKeys = new Map<string, number>();
  private readonly paraKeys = new Map<string, number>();
  private readonly cellKeys = new Map<string, number>();
  private readonly openMarks = new Map<string, { name: string; start: number }>();
  /** The field being read: its instruction until `separate`, then its result's runs carry its id. */
  /** The open field; `look`: its begin run's, which a check box (no result) shows in. */
  private field: { id: number; instruction: string; result: boolean; start?: number; form?: XmlElement; look?: RunLook } | undefined;
  private link: number | undefined;
  private insertion: { start: number; time: Date } | undefined;
  private lastLook: { format: number; colour: Colour; background: Colour } | undefined;

  constructor(
    private readonly styles: Styles,
    private readonly links: Map<string, string>,
    private readonly fieldIds: { next: number },
    private readonly pictureBytes: (id: string) => Uint8Array | undefined = () => undefined,
  ) {}

  story(): TxStory {
    if (this.paragraphs.length === 0) this.paragraph(undefined, [], true);
    // Runs tile the text: an empty story has one empty run.
    if (this.runs.length === 0) this.runs.push({ start: 0, end: 0, format: this.charFormat({}), colour: null, background: null, field: 0 });
    return {
      text: this.text,
      runs: this.runs,
      charFormats: this.charFormats,
      paragraphs: this.paragraphs,
      paraFormats: this.paraFormats,
      tables: this.tables,
      cellFormats: this.cellFormats,
      fields: this.fields,
      marks: this.marks,
      ...(this.changes.length ? { changes: this.changes } : {}),
      ...(this.regions.length ? { regions: this.regions } : {}),
      ...(this.pictures.length ? { pictures: this.pictures } : {}),
      ...(this.frames.length ? { frames: this.frames } : {}),
    };
  }

  private charFormat(look: RunLook): number {
    const format: TxCharFormat = {
      face: look.face ?? 'Arial',
      halfPoints: Math.max(1, look.halfPoints ?? 20),
      bold: look.bold ?? false,
      italic: look.italic ?? false,
      underline: look.underline ?? false,
      strike: look.strike ?? false,
    };
    return intern(this.charFormats, this.formatKeys, format);
  }

  private paraFormat(look: ParaLook): number {
    const format: TxParaFormat = {
      alignment: look.alignment ?? 'left',
      keepNext: look.keepNext ?? false,
      spaceBefore: look.spaceBefore ?? 0,
      spaceAfter: look.spaceAfter ?? 0,
      lineSpacing: look.lineSpacing ?? 100,
      ...(look.atLeast !== undefined ? { atLeast: look.atLeast } : {}),
      tabs: look.tabs ?? [],
      ...(look.rightTabs?.length ? { rightTabs: look.rightTabs } : {}),
      ...(look.decimalTabs?.length ? { decimalTabs: look.decimalTabs } : {}),
    };
    if (look.keepLines) format.keepLines = true;
    if (look.indent) format.indent = look.indent;
    if (format.atLeast !== undefined && (format.atLeast < 1 || format.atLeast > 0x7fff))
      throw new TxOutputError(`a line height of at least ${format.atLeast} twips`);
    if (format.tabs.length + (format.rightTabs?.length ?? 0) + (format.decimalTabs?.length ?? 0) > 14)
      throw new TxOutputError('more than 14 tab stops in a paragraph');
    if (format.lineSpacing < 10 || format.lineSpacing > 1000) throw new TxOutputError(`a line spacing of ${format.lineSpacing} %`);
    return intern(this.paraFormats, this.paraKeys, format);
  }

  /**
   * A picture in line with the text (wp:inline, a DrawingML picture of a type TX embeds): one
   * U+0001 character and its record, at its size in the document (TX's own size, scaled 100 %).
   * A text box in line (a Word 2010 shape with text) is TX's text box in line, its text a story of
   * its own. A floating picture, a chart or another object is a 400 naming it.
   */
  private drawing(drawing: XmlElement, look: RunLook): void {
    const inline = child(drawing, 'wp:inline');
    const floating = child(drawing, 'wp:anchor');
    if (floating && val(child(floating, 'wp:docPr'), 'name')?.startsWith(SIGNATURE_BOX_NAME)) return this.signatureBox(floating);
    if (floating && descendant(floating, 'w:txbxContent')) return this.floatingFrame(floating);
    if (!inline) throw new TxOutputError('pictures that are not in line with the text');
    const data = descendant(inline, 'a:graphicData');
    const extent = child(inline, 'wp:extent');
    const [width, height] = [val(extent, 'cx'), val(extent, 'cy')].map((emu) => Math.round(number(emu) / 635));
    if (!width || !height || width > 0xffff || height > 0xffff)
      throw new TxOutputError(`a picture or text box of ${width} x ${height} twips`);
    const content = data && val(data, 'uri') === SHAPE_URI ? descendant(data, 'w:txbxContent') : undefined;
    if (content) {
      if (width > 31680 || height > 31680) throw new TxOutputError(`a text box of ${width} x ${height} twips`);
      const builder = new StoryBuilder(this.styles, this.links, this.fieldIds, this.pictureBytes);
      builder.blocks(content.children, true);
      const story = builder.story();
      if (story.pictures?.some((picture) => picture.box)) throw new TxOutputError('text boxes inside text boxes');
      if (story.frames) throw new TxOutputError('signature boxes inside text boxes');
      this.pictures.push({ type: 'box', data: new Uint8Array(0), width, height, scaleX: 100, scaleY: 100, box: { story } });
      this.append('\u0001', look);
      return;
    }
    if (!data || val(data, 'uri') !== PICTURE_URI) throw new TxOutputError('pictures, charts and embedded objects');
    const blip = descendant(data, 'a:blip');
    // An SVG as Word keeps it: in the svgBlip extension, over the PNG it shows. TX keeps the SVG alone.
    const svgBlip = blip && descendant(blip, 'asvg:svgBlip');
    const bytes = blip ? this.pictureBytes(val(svgBlip ?? blip, 'r:embed') ?? '') : undefined;
    const type = bytes ? pictureTypeOf(bytes) : undefined;
    if (!bytes || !type)
      throw new TxOutputError('pictures of this type (only PNG, JPEG, GIF, BMP, EMF, WMF and SVG in line with the text)');
    this.pictures.push({ type, data: bytes, width, height, scaleX: 100, scaleY: 100 });
    this.append('\u0001', look);
  }

  /**
   * Where a floating drawing stands as TX places its frames (formats/tx/docx.ts floating): from the
   * text area's corner or from its paragraph, offset and size in twips; undefined otherwise.
   */
  private placed(floating: XmlElement): Pick<TxSignatureBox, 'x' | 'y' | 'width' | 'height' | 'placement'> | undefined {
    const offset = (name: string): { from: string; twips: number } => {
      const position = child(floating, name);
      const text =
        child(position, 'wp:posOffset')
          ?.children.map((c) => (c.kind === 'text' ? c.text : ''))
          .join('') ?? '';
      return { from: val(position, 'relativeFrom') ?? '', twips: Math.round(number(text.trim()) / 635) };
    };
    const [h, v] = [offset('wp:positionH'), offset('wp:positionV')];
    const placement =
      h.from === 'margin' && v.from === 'margin' ? 'margin' : h.from === 'column' && v.from === 'paragraph' ? 'paragraph' : undefined;
    const extent = child(floating, 'wp:extent');
    const [width, height] = [val(extent, 'cx'), val(extent, 'cy')].map((emu) => Math.round(number(emu) / 635)) as [number, number];
    if (!placement || Math.abs(h.twips) > 31680 || Math.abs(v.twips) > 31680 || width < 1 || height < 1 || width > 31680 || height > 31680)
      return undefined;
    return { x: h.twips, y: v.twips, width, height, placement };
  }

  /** A floating text box placed as TX places a frame: a TX text frame of kind 1 or 2, its text a story of its own. */
  private floatingFrame(floating: XmlElement): void {
    const place = this.placed(floating);
    if (!place || place.x < 0 || place.y < 0)
      throw new TxOutputError('text boxes placed other than from the text area or from their paragraph');
    const builder = new StoryBuilder(this.styles, this.links, this.fieldIds, this.pictureBytes);
    builder.blocks(descendant(floating, 'w:txbxContent')!.children, true);
    const story = builder.story();
    if (story.frames || story.pictures?.some((picture) => picture.box)) throw new TxOutputError('text boxes inside text boxes');
    this.frames.push({ anchor: this.text.length, ...place, story });
  }

  /** A TX signature box as formats/tx/docx.ts writes one: its picture floating from the text area or from its paragraph. */
  private signatureBox(floating: XmlElement): void {
    const place = this.placed(floating);
    if (!place) throw new TxOutputError('a signature box placed other than from the text area or from its paragraph');
    const blip = descendant(floating, 'a:blip');
    const svgBlip = blip && descendant(blip, 'asvg:svgBlip');
    const data = blip ? this.pictureBytes(val(svgBlip ?? blip, 'r:embed') ?? '') : undefined;
    const type = data ? pictureTypeOf(data) : undefined;
    if (!data || !type) throw new TxOutputError('a signature box showing a picture of this type');
    const signature = { type, data, width: place.width, height: place.height, scaleX: 100, scaleY: 100 };
    this.frames.push({ anchor: this.text.length, ...place, signature });
  }

  /** Text with the look of its run, joined to the run before when they look alike. */
  private append(value: string, look: RunLook): void {
    if (!value) return;
    const format = this.charFormat(look);
    const colour = look.colour ?? null;
    const background = look.background ?? null;
    const field = this.field?.result ? this.field.id : (this.link ?? 0);
    const previous = this.runs[this.runs.length - 1];
    const start = this.text.length;
    this.text += value;
    if (this.text.length > 65_000) throw new TxOutputError('more than 65,000 characters in one part (TX counts positions in 16 bits)');
    this.lastLook = { format, colour, background };
    if (
      previous &&
      previous.end === start &&
      previous.format === format &&
      previous.colour === colour &&
      previous.background === background &&
      previous.field === field
    ) {
      previous.end = this.text.length;
      return;
    }
    this.runs.push({ start, end: this.text.length, format, colour, background, field });
  }

  /** Block content: paragraphs and tables, the last paragraph of the story without its mark. */
  blocks(nodes: XmlNode[], last: boolean, cell = false): void {
    const blocks = nodes.filter(
      (n): n is XmlElement => n.kind === 'element' && ['w:p', 'w:tbl', 'w:sdt', 'w:customXml', 'w:altChunk'].includes(n.name),
    );
    // Word ends a cell with a paragraph, which follows a nested table; TX's cell ends with the table.
    const end = blocks[blocks.length - 1];
    if (cell && blocks.length > 1 && blocks[blocks.length - 2]!.name === 'w:tbl' && end?.name === 'w:p' && isEmptyParagraph(end))
      blocks.pop();
    blocks.forEach((node, i) => {
      if (node.name === 'w:p') this.paragraph(node, node.children, last && i === blocks.length - 1);
      else if (node.name === 'w:tbl') this.table(node);
      else throw new TxOutputError(node.name === 'w:sdt' ? 'content controls' : `${node.name.slice(2)} elements`);
    });
    // Marks between blocks.
    for (const node of nodes) if (node.kind === 'element' && node.name.startsWith('w:bookmark')) this.inline(node, {});
  }

  paragraph(node: XmlElement | undefined, content: XmlNode[], last: boolean): void {
    const pPr = child(node, 'w:pPr');
    if (child(pPr, 'w:sectPr')) throw new TxOutputError('several sections');
    const style = this.styles.paragraph(val(child(pPr, 'w:pStyle')));
    const para = { ...this.styles.paraDefaults, ...style.para, ...paraLook(pPr) };
    const runBase = { ...this.styles.runDefaults, ...style.run };
    const start = this.text.length;
    this.lastLook = undefined;
    for (const item of content) this.inline(item, runBase);
    if (this.field) throw new TxOutputError('fields that go on over several paragraphs');
    const format = this.paraFormat(para);
    if (!last) {
      // The mark has the look of the paragraph's last text, else of the paragraph's mark properties.
      const seen = this.lastLook as { format: number; colour: Colour; background: Colour } | undefined;
      const markLook = seen
        ? { ...this.charFormats[seen.format]!, colour: seen.colour, background: seen.background }
        : { ...runBase, ...runLook(child(pPr, 'w:rPr')) };
      const saved = this.field;
      this.field = undefined;
      const link = this.link;
      this.link = undefined;
      this.append('\n', markLook);
      this.field = saved;
      this.link = link;
      // A paragraph mark inserted while changes were tracked is part of the insertion.
      const markIns = child(child(pPr, 'w:rPr'), 'w:ins');
      if (markIns) {
        const date = Date.parse(val(markIns, 'w:date') ?? '');
        this.inserted(this.text.length - 1, this.text.length, new Date(Number.isNaN(date) ? Date.now() : date));
      }
    }
    this.paragraphs.push({ start, end: this.text.length, format });
  }

  private inline(node: XmlNode, base: RunLook): void {
    if (node.kind !== 'element') return;
    switch (node.name) {
      case 'w:pPr':
      case 'w:proofErr':
        return;
      case 'w:permStart': {
        // TX's editable regions are for everyone; a range for a named user or group has no TX equivalent seen.
        const id = Number(val(node, 'w:id'));
        if (val(node, 'w:edGrp') !== 'everyone' || val(node, 'w:ed') || !Number.isInteger(id) || id < 0)
          throw new TxOutputError('editable ranges for named users or groups (only for everyone)');
        this.openRegions.set(id, this.text.length);
        return;
      }
      case 'w:permEnd': {
        const id = Number(val(node, 'w:id'));
        const start = this.openRegions.get(id);
        if (start !== undefined && start < this.text.length) this.regions.push({ start, end: this.text.length, id });
        this.openRegions.delete(id);
        return;
      }
      case 'w:r':
        return this.run(node, base);
      case 'w:bookmarkStart': {
        const name = val(node, 'w:name') ?? '';
        if (name && !name.startsWith('_')) this.openMarks.set(val(node, 'w:id') ?? '', { name, start: this.text.length });
        return;
      }
      case 'w:bookmarkEnd': {
        const open = this.openMarks.get(val(node, 'w:id') ?? '');
        if (open) {
          this.marks.push({ name: open.name, start: open.start, end: this.text.length });
          this.openMarks.delete(val(node, 'w:id') ?? '');
        }
        return;
      }
      case 'w:hyperlink': {
        const id = val(node, 'r:id');
        const anchor = val(node, 'w:anchor');
        const address = id ? this.links.get(id) : undefined;
        const link = address !== undefined ? decodeRelative(address) : undefined;
        if (this.link !== undefined || this.field) throw new TxOutputError('hyperlinks inside fields');
        if (link === undefined && !anchor) throw new TxOutputError('hyperlinks without an address');
        if (link !== undefined && !isLinkAddress(link))
          throw new TxOutputError('links to addresses that are not web or mail addresses or paths relative to the document');
        const field = this.fieldIds.next++;
        this.fields.set(field, link !== undefined ? { instruction: [], link } : { instruction: [], target: anchor! });
        this.link = field;
        for (const item of node.children) this.inline(item, base);
        this.link = undefined;
        if (!this.runs.some((run) => run.field === field)) this.fields.delete(field);
        return;
      }
      case 'w:fldSimple': {
        if (this.field || this.link !== undefined) throw new TxOutputError('fields inside fields');
        this.field = { id: this.fieldIds.next++, instruction: val(node, 'w:instr') ?? '', result: true };
        for (const item of node.children) this.inline(item, base);
        this.endField();
        return;
      }
      case 'w:ins': {
        if (this.insertion) throw new TxOutputError('insertions inside insertions');
        const date = Date.parse(val(node, 'w:date') ?? '');
        this.insertion = { start: this.text.length, time: new Date(Number.isNaN(date) ? Date.now() : date) };
        for (const item of node.children) this.inline(item, base);
        this.inserted(this.insertion.start, this.text.length, this.insertion.time);
        this.insertion = undefined;
        return;
      }
      case 'w:smartTag':
      case 'w:customXml':
        for (const item of node.children) this.inline(item, base);
        return;
      case 'w:del':
      case 'w:moveFrom':
      case 'w:moveTo':
        throw new TxOutputError('tracked deletions and moves (only insertions)');
      case 'w:sdt': {
        // A date content control: TX's date form field (what formats/tx/docx.ts writes for one).
        const properties = child(node, 'w:sdtPr');
        if (!child(properties, 'w:date') || this.field || this.link !== undefined) throw new TxOutputError('content controls');
        const id = this.fieldIds.next++;
        const name = val(child(properties, 'w:alias')) ?? val(child(properties, 'w:tag')) ?? '';
        this.formCharacter(id, undefined, { kind: 'date', items: [] }, name);
        const look = runLook(child(properties, 'w:rPr'));
        this.runs[this.runs.length - 1]!.format = this.charFormat({ ...base, ...look });
        return;
      }
      default:
        throw new TxOutputError(`${node.name.replace(/^w:/, '')} elements in paragraphs`);
    }
  }

  /** Records inserted text, joined to an insertion of the same time that ends where it starts (TX keeps one range). */
  private inserted(start: number, end: number, time: Date): void {
    if (end <= start) return;
    const last = this.changes[this.changes.length - 1];
    if (last && last.end === start && last.time.getTime() === time.getTime()) last.end = end;
    else this.changes.push({ start, end, kind: 'insertion', time });
  }

  private endField(): void {
    const field = this.field!;
    this.field = undefined;
    const tokens = instructionTokens(field.instruction);
    if (!tokens.length) return;
    const kind = FORM_INSTRUCTIONS[tokens[0]!.toUpperCase()];
    if (kind && field.form) return this.formField(field.id, field.start ?? this.text.length, kind, field.form, field.look);
    if (!this.runs.some((run) => run.field === field.id)) {
      // TX keeps a field only with text: an empty result shows its name.
      this.field = { ...field, result: true };
      this.append(`«${tokens[1] ?? tokens[0]}»`, this.lastLook ? { ...this.charFormats[this.lastLook.format]! } : {});
      this.field = undefined;
    }
    const merge = tokens[0]!.toUpperCase() === 'MERGEFIELD';
    this.fields.set(field.id, { ...(merge && tokens[1] ? { name: tokens[1] } : {}), instruction: tokens });
  }

  /**
   * A Word form field as TX's (one U+0002 character, formats/tx/read.ts): its result, read as runs,
   * gives way to the character; its name and a drop-down's entries are kept. A check box has no
   * TX equivalent seen.
   */
  private formField(id: number, start: number, kind: TxFormField['kind'], data: XmlElement, begun: RunLook | undefined): void {
    const result = this.runs.find((run) => run.field === id);
    const last = this.runs[this.runs.length - 1];
    const look = result ? this.lookOf(result) : (begun ?? (last ? this.lookOf(last) : undefined));
    while (this.runs.length && this.runs[this.runs.length - 1]!.field === id) this.runs.pop();
    const before = this.runs[this.runs.length - 1];
    if (before && before.end > start) before.end = start;
    this.text = this.text.slice(0, start);
    const items = children(child(data, 'w:ddList'), 'w:listEntry').map((entry) => val(entry) ?? '');
    const name = val(child(data, 'w:name')) ?? '';
    if (kind === 'checkbox') {
      // TX shows a check box as a character: ☒ checked, ☐ not (what TX Text Control writes).
      const box = child(data, 'w:checkBox');
      const checked = on(child(box, 'w:checked')) ?? on(child(box, 'w:default')) ?? false;
      this.formCharacter(id, look, { kind, items: [], checked: '\u2612', unchecked: '\u2610' }, name, checked ? '\u2612' : '\u2610');
      return;
    }
    this.formCharacter(id, look, { kind, items }, name);
  }

  private lookOf(run: TxRun): RunLook {
    return { ...this.charFormats[run.format]!, colour: run.colour, background: run.background };
  }

  /** The one character of a TX form field, in the look of the run it stands for. */
  private formCharacter(id: number, look: RunLook | undefined, form: TxFormField, name: string, shown = '\u0002'): void {
    const field = this.field;
    this.field = { id, instruction: '', result: true };
    this.append(shown, look ?? {});
    this.field = field;
    this.fields.set(id, { instruction: [], ...(name ? { name } : {}), form });
  }

  private run(node: XmlElement, base: RunLook): void {
    const rPr = child(node, 'w:rPr');
    const look = { ...base, ...this.styles.run(val(child(rPr, 'w:rStyle'))), ...runLook(rPr) };
    for (const item of node.children) {
      if (item.kind !== 'element') continue;
      switch (item.name) {
        case 'w:rPr':
        case 'w:lastRenderedPageBreak':
        case 'w:softHyphen':
          break;
        case 'w:t':
          if (this.field && !this.field.result) break;
          this.append(item.children.map((c) => (c.kind === 'text' ? c.text : '')).join(''), look);
          break;
        case 'w:instrText':
          if (!this.field) throw new TxOutputError('field instructions outside fields');
          if (this.field.result) throw new TxOutputError('fields inside fields');
          this.field.instruction += item.children.map((c) => (c.kind === 'text' ? c.text : '')).join('');
          break;
        case 'w:fldChar': {
          const type = val(item, 'w:fldCharType');
          if (type === 'begin') {
            if (this.field || this.link !== undefined) throw new TxOutputError('fields inside fields');
            const form = child(item, 'w:ffData');
            this.field = {
              id: this.fieldIds.next++,
              instruction: '',
              result: false,
              start: this.text.length,
              look,
              ...(form ? { form } : {}),
            };
          } else if (type === 'separate' && this.field) this.field.result = true;
          else if (type === 'end' && this.field) this.endField();
          break;
        }
        case 'w:tab':
          this.append('\t', look);
          break;
        case 'w:noBreakHyphen':
          this.append('\u2011', look);
          break;
        case 'w:br':
          this.append(val(item, 'w:type') === 'page' ? '\u000c' : '\u000b', look);
          break;
        case 'w:cr':
          this.append('\u000b', look);
          break;
        case 'w:drawing':
          this.drawing(item, look);
          break;
        case 'mc:AlternateContent': {
          // Word writes a text box as a Word 2010 shape with a VML fallback: the shape is read.
          const drawing = children(item, 'mc:Choice').find((choice) => val(choice, 'Requires') === 'wps');
          const shape = drawing && descendant(drawing, 'w:drawing');
          if (!shape) throw new TxOutputError('pictures, charts and embedded objects');
          this.drawing(shape, look);
          break;
        }
        case 'w:pict':
        case 'w:object':
          throw new TxOutputError('pictures, charts and embedded objects');
        case 'w:footnoteReference':
        case 'w:endnoteReference':
          throw new TxOutputError('footnotes and endnotes');
        case 'w:commentReference':
          throw new TxOutputError('comments');
        default:
          throw new TxOutputError(`${item.name.replace(/^w:/, '')} elements in text`);
      }
    }
  }

  private cellFormat(format: TxCellFormat): number {
    return intern(this.cellFormats, this.cellKeys, format);
  }

  private table(node: XmlElement): void {
    const rows = children(node, 'w:tr');
    if (!rows.length) return;
    const cells: TxCell[] = [];
    let columns = 0;
    const tableStart = this.tables.length;
    this.tables.push({ rows: rows.length, columns: 0, cells });
    const grid = children(child(node, 'w:tblGrid'), 'w:gridCol').map((col) => number(val(col, 'w:w'), 0));
    let tableLeft: number | undefined;
    for (const row of children(node)) {
      if (row.name.startsWith('w:bookmark')) {
        this.inline(row, {});
        continue;
      }
      if (row.name !== 'w:tr') continue;
      const header = on(child(child(row, 'w:trPr'), 'w:tblHeader')) ?? false;
      const rowStart = cells.length;
      let left: number | undefined;
      for (const tc of children(row, 'w:tc')) {
        const tcPr = child(tc, 'w:tcPr');
        if (child(tcPr, 'w:hMerge')) throw new TxOutputError('merged table cells of the old kind (hMerge)');
        const span = Math.max(1, number(val(child(tcPr, 'w:gridSpan')), 1));
        const vMerge = child(tcPr, 'w:vMerge');
        const up = vMerge !== undefined && (val(vMerge) ?? 'continue') === 'continue';
        const format = this.cellFormatOf(tcPr, header);
        // Every row starts where the first does: rows agree on the grid TX's cells keep their places in.
        tableLeft ??= Math.round(this.cellFormats[format]!.borders[0] / 2);
        left ??= tableLeft;
        const width = number(val(child(tcPr, 'w:tcW'), 'w:w'), 1440);
        const at = this.text.length;
        if (up) {
          // TX keeps a cell merged into the one above as an empty cell in its place (formats/tx/read.ts).
          if (span > 1) throw new TxOutputError('table cells merged both across and down');
          if (descendant(tc, 'w:t') || descendant(tc, 'w:drawing'))
            throw new TxOutputError('text in a table cell merged into the one above it');
          if (rowStart === 0) throw new TxOutputError('a table cell merged into a row above the table');
          cells.push({ start: at, end: at, left, width, format, merged: { up: true } });
          left += width;
          continue;
        }
        this.blocks(tc.children, false, true);
        // A cell spanning grid columns: TX keeps it at its whole width, and the cells it covers in
        // their places, each merged into the one before it (the grid's widths, else equal parts).
        const column = cells.length - rowStart;
        const parts = Array.from({ length: span }, (_, k) => grid[column + k] ?? 0);
        const known = parts.every((w) => w > 0) && parts.reduce((a, b) => a + b, 0) === width;
        const widths = known ? parts : parts.map((_, k) => Math.floor(((k + 1) * width) / span) - Math.floor((k * width) / span));
        cells.push({ start: at, end: this.text.length, left, width, format, ...(span > 1 ? { merged: { right: true } } : {}) });
        let covered = left + widths[0]!;
        for (let k = 1; k < span; k++) {
          const end = this.text.length;
          cells.push({
            start: end,
            end,
            left: covered,
            width: widths[k]!,
            format,
            merged: k < span - 1 ? { left: true, right: true } : { left: true },
          });
          covered += widths[k]!;
        }
        left += width;
      }
      const count = cells.length - rowStart;
      if (columns === 0) columns = count;
      if (count !== columns) throw new TxOutputError('tables whose rows have different numbers of cells');
    }
    // A cell merged into the one above stands below a cell of its own (not part of another's span).
    cells.forEach((cell, i) => {
      if (cell.merged?.up && cells[i - columns]?.merged?.left) throw new TxOutputError('table cells merged down below cells merged across');
    });
    this.tables[tableStart] = { rows: rows.length, columns, cells };
  }

  private cellFormatOf(tcPr: XmlElement | undefined, headerRow: boolean): number {
    const sides = ['left', 'top', 'right', 'bottom'] as const;
    const borders = child(tcPr, 'w:tcBorders');
    const margins = child(tcPr, 'w:tcMar');
    const side = (parent: XmlElement | undefined, name: string) =>
      child(parent, `w:${name}`) ?? child(parent, `w:${name === 'left' ? 'start' : 'end'}`);
    const widths = sides.map((name) => {
      const border = side(borders, name);
      if (!border || ['nil', 'none'].includes(val(border) ?? 'nil')) return 0;
      return Math.round((number(val(border, 'w:sz'), 4) * 20) / 8);
    }) as TxCellFormat['borders'];
    const colours = sides.map((name) => {
      const border = side(borders, name);
      return border && !['nil', 'none'].includes(val(border) ?? 'nil') ? (hex(val(border, 'w:color')) ?? null) : null;
    }) as TxCellFormat['borderColours'];
    // Word measures the distance to the text from the border's inner edge; TX from its outer edge.
    const padding = sides.map((name, i) => {
      const margin = number(val(side(margins, name), 'w:w'), 0);
      return Math.max(0, margin - (i % 2 === 0 ? widths[i]! : 0));
    }) as TxCellFormat['padding'];
    const shading = hex(val(child(tcPr, 'w:shd'), 'w:fill')) ?? null;
    return this.cellFormat({ borders: widths, padding, shading, borderColours: colours, headerRow });
  }
}

/** Word's hash algorithm ids (ECMA-376 cryptAlgorithmSid) by TX's names. */
const ALGORITHMS: Record<string, string> = { '4': 'SHA-1', '12': 'SHA-256', '13': 'SHA-384', '14': 'SHA-512' };

/** The document's protection as TX names it (formats/tx/docx.ts writes it so). */
function protectionOf(settings: string | undefined): TxProtection | undefined {
  const element = settings ? /<w:documentProtection\b[^>]*>/.exec(settings)?.[0] : undefined;
  if (!element) return undefined;
  const get = (name: string) => new RegExp(`\\bw:${name}="([^"]*)"`).exec(element)?.[1];
  const algorithm = ALGORITHMS[get('cryptAlgorithmSid') ?? ''];
  const [hash, salt, spinCount] = [get('hash'), get('salt'), Number(get('cryptSpinCount'))];
  return {
    edit: get('edit') ?? 'none',
    enforced: ['1', 'true', 'on'].includes(get('enforcement') ?? ''),
    ...(algorithm && hash && salt && spinCount > 0 ? { algorithm, hash, salt, spinCount } : {}),
  };
}

/**
 * The document as a TX model: the body, the header and footer (and the first page's), the page.
 * `kept`: the records of the TX document it was made from (a TX template merged, a TX document
 * edited), written back as TX wrote them: its settings, style sheet and protection.
 */
export function docxToTx(docx: Uint8Array, kept?: TxFileKept): TxDocument {
  const pkg = OoxmlPackage.read(docx);
  const main = pkg.mainDocument();
  const xml = pkg.text(main);
  if (!xml) throw new InputError('The document has no main part.');
  const root = parseXml(xml, main).root;
  const body = child(root, 'w:body');
  const styles = new Styles(pkg.text('word/styles.xml'));
  if (pkg.has('word/numbering.xml') && /<w:numPr\b/.test(xml)) throw new TxOutputError('numbered or bulleted lists');
  // TX keeps a protection in settings this writer does not compose (docs/tx-format.md): only a
  // TX source's settings carry one, and writeTx checks they carry this one.
  const protection = kept ? protectionOf(pkg.text('word/settings.xml')) : undefined;
  if (!kept && protectionOf(pkg.text('word/settings.xml'))?.enforced) throw new TxOutputError('document protection (editing restrictions)');
  const fieldIds = { next: 1 };
  /** A part's pictures by relationship id: the image parts it embeds. */
  const picturesOf = (part: string) => (id: string) => {
    const rel = pkg.relationships(part).find((r) => r.id === id && !r.external && r.type === REL_IMAGE);
    return rel ? pkg.parts.get(OoxmlPackage.resolve(part, rel.target)) : undefined;
  };
  const linksOf = (part: string) =>
    new Map(
      pkg
        .relationships(part)
        .filter((r) => r.external)
        .map((r) => [r.id, r.target]),
    );

  const sectPr = child(body, 'w:sectPr');
  const titlePg = Boolean(child(sectPr, 'w:titlePg') && on(child(sectPr, 'w:titlePg')));
  const cols = child(sectPr, 'w:cols');
  if (cols && number(val(cols, 'w:num'), 1) > 1) throw new TxOutputError('columns');
  const pgSz = child(sectPr, 'w:pgSz');
  const pgMar = child(sectPr, 'w:pgMar');
  const page: TxPage = {
    width: number(val(pgSz, 'w:w'), 11906),
    height: number(val(pgSz, 'w:h'), 16838),
    margins: [
      number(val(pgMar, 'w:left'), 1440),
      number(val(pgMar, 'w:top'), 1440),
      number(val(pgMar, 'w:right'), 1440),
      number(val(pgMar, 'w:bottom'), 1440),
    ],
    headerDistance: number(val(pgMar, 'w:header'), 720),
    footerDistance: number(val(pgMar, 'w:footer'), 720),
  };
  if (page.width < 1440 || page.height < 1440 || page.width > 31680 || page.height > 31680)
    throw new TxOutputError(`a page of ${page.width} x ${page.height} twips`);

  const part = (kind: 'header' | 'footer', type: 'default' | 'first'): TxStory | undefined => {
    const references = children(sectPr, `w:${kind}Reference`);
    if (references.some((r) => val(r, 'w:type') === 'even')) throw new TxOutputError(`even-page ${kind}s`);
    const reference = references.find((r) => (val(r, 'w:type') ?? 'default') === type);
    if (!reference) return undefined;
    const rel = pkg
      .relationships(main)
      .find((r) => r.id === val(reference, 'r:id') && r.type === (kind === 'header' ? REL_HEADER : REL_FOOTER));
    if (!rel) return undefined;
    const name = path.posix.join(path.posix.dirname(main), rel.target);
    const content = pkg.text(name);
    if (!content) return undefined;
    const builder = new StoryBuilder(styles, linksOf(name), fieldIds, picturesOf(name));
    builder.blocks(parseXml(content, name).root.children, true);
    const story = builder.story();
    if (story.frames) throw new TxOutputError(`signature boxes in ${kind}s`);
    return story;
  };

  const builder = new StoryBuilder(styles, linksOf(main), fieldIds, picturesOf(main));
  builder.blocks(body?.children ?? [], true);
  // TX's right stop stands at the right margin (kind 5 at 0): a right stop elsewhere has no TX form seen.
  const textWidth = page.width - page.margins[0] - page.margins[2];
  const atMargin = (story: TxStory | undefined) => {
    for (const format of story?.paraFormats ?? []) {
      if (!format.rightTabs) continue;
      if (format.rightTabs.some((pos) => pos !== textWidth))
        throw new TxOutputError('right-aligned tab stops other than at the right margin');
      format.rightTabs = [0];
    }
    return story;
  };
  const header = part('header', 'default');
  const footer = part('footer', 'default');
  // A first page of its own (w:titlePg): its header and footer, empty where Word shows none.
  const empty = () => new StoryBuilder(styles, new Map(), fieldIds).story();
  const firstHeader = titlePg ? (part('header', 'first') ?? (header ? empty() : undefined)) : undefined;
  const firstFooter = titlePg ? (part('footer', 'first') ?? (footer ? empty() : undefined)) : undefined;
  for (const story of [header, footer, firstHeader, firstFooter]) atMargin(story);
  return {
    ...atMargin(builder.story())!,
    page,
    ...(header ? { header } : {}),
    ...(footer ? { footer } : {}),
    ...(firstHeader ? { firstHeader } : {}),
    ...(firstFooter ? { firstFooter } : {}),
    ...(protection ? { protection } : {}),
    ...(kept ? { keptFile: kept } : {}),
  };
}
