import { parseDocument } from 'htmlparser2';
import type { ChildNode, Element } from 'domhandler';
import { escapeAttr, escapeText } from '../ooxml/xml.js';
import { RPR_ORDER } from '../ooxml/properties-order.js';
import { cssColour } from '../util/colours.js';
import { inlinePicture, decodeImage, type DecodedImage, type MediaSink } from './images.js';

/**
 * HTML values (mergeHtml) as real WordprocessingML: paragraphs, headings, lists, tables, line
 * breaks, bold/italic/underline/strike, sub/superscript, span colours, fonts, sizes and
 * backgrounds, links and data-URI images. Scripts and external resources are dropped; unknown
 * tags keep their text. Lists are real Word lists with numbering definitions of their own (the
 * template's are left alone); without a document to add them to, bullet or number text.
 */

export function isHtmlValue(value: string): boolean {
  return /^\s*<html[\s>]/i.test(value) && /<\/html>\s*$/i.test(value);
}

type RunProps = Map<string, string>;

function parseRunProps(rPr: string): RunProps {
  const props: RunProps = new Map();
  const inner = rPr.replace(/^<w:rPr>|<\/w:rPr>$/g, '');
  for (const m of inner.matchAll(/<(w:[A-Za-z]+)\b[^>]*?(?:\/>|>[\s\S]*?<\/\1>)/g)) props.set(m[1]!, m[0]);
  return props;
}

function serializeRunProps(props: RunProps): string {
  if (props.size === 0) return '';
  const known = RPR_ORDER.filter((name) => props.has(name)).map((name) => props.get(name)!);
  const unknown = [...props].filter(([name]) => !RPR_ORDER.includes(name)).map(([, xml]) => xml);
  return `<w:rPr>${known.join('')}${unknown.join('')}</w:rPr>`;
}

/** CSS size to half-points. */
function halfPoints(value: string): number | undefined {
  const m = /^([\d.]+)\s*(pt|px|em|rem)?$/.exec(value.trim().toLowerCase());
  if (!m) return undefined;
  const n = Number(m[1]);
  const points = m[2] === 'px' ? n * 0.75 : m[2] === 'em' || m[2] === 'rem' ? n * 12 : n;
  return Math.max(2, Math.round(points * 2));
}

function styled(base: RunProps, element: Element): RunProps {
  const props = new Map(base);
  const tag = element.name.toLowerCase();
  if (tag === 'b' || tag === 'strong') props.set('w:b', '<w:b/>');
  if (tag === 'i' || tag === 'em') props.set('w:i', '<w:i/>');
  if (tag === 'u' || tag === 'ins') props.set('w:u', '<w:u w:val="single"/>');
  if (tag === 's' || tag === 'strike' || tag === 'del') props.set('w:strike', '<w:strike/>');
  if (tag === 'sub') props.set('w:vertAlign', '<w:vertAlign w:val="subscript"/>');
  if (tag === 'sup') props.set('w:vertAlign', '<w:vertAlign w:val="superscript"/>');
  if (tag === 'a') {
    props.set('w:color', '<w:color w:val="0563C1"/>');
    props.set('w:u', '<w:u w:val="single"/>');
  }
  const heading = /^h([1-6])$/.exec(tag);
  if (heading) {
    props.set('w:b', '<w:b/>');
    props.set('w:sz', `<w:sz w:val="${[48, 36, 28, 24, 20, 16][Number(heading[1]) - 1]}"/>`);
  }
  for (const declaration of (element.attribs.style ?? '').split(';')) {
    const [name, ...rest] = declaration.split(':');
    const value = rest.join(':').trim();
    switch (name?.trim().toLowerCase()) {
      case 'color': {
        const c = cssColour(value);
        if (c) props.set('w:color', `<w:color w:val="${c}"/>`);
        break;
      }
      case 'background':
      case 'background-color': {
        const c = cssColour(value);
        if (c) props.set('w:shd', `<w:shd w:val="clear" w:color="auto" w:fill="${c}"/>`);
        break;
      }
      case 'font-family': {
        const font = escapeAttr(
          value
            .split(',')[0]!
            .trim()
            .replace(/^['"]|['"]$/g, ''),
        );
        if (font) props.set('w:rFonts', `<w:rFonts w:ascii="${font}" w:hAnsi="${font}" w:cs="${font}"/>`);
        break;
      }
      case 'font-size': {
        const hp = halfPoints(value);
        if (hp) props.set('w:sz', `<w:sz w:val="${hp}"/>`);
        break;
      }
      case 'font-weight':
        if (/bold|[6-9]00/.test(value)) props.set('w:b', '<w:b/>');
        break;
      case 'font-style':
        if (/italic/.test(value)) props.set('w:i', '<w:i/>');
        break;
      case 'text-decoration':
        if (/underline/.test(value)) props.set('w:u', '<w:u w:val="single"/>');
        if (/line-through/.test(value)) props.set('w:strike', '<w:strike/>');
        break;
    }
  }
  return props;
}

const BLOCKS = new Set([
  'p',
  'div',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'li',
  'blockquote',
  'pre',
  'section',
  'article',
  'header',
  'footer',
  'address',
]);
const DROPPED = new Set(['script', 'style', 'head', 'title', 'iframe', 'object', 'embed', 'link', 'meta', 'noscript', 'template']);
const EMU_PER_PIXEL = 9525;
const MAX_IMAGE_EMU = 6 * 914400;

/** Output of an HTML value: block XML for a paragraph context. */
export interface HtmlTarget {
  sink: MediaSink | undefined;
  part: string;
  /** Adds an external hyperlink relationship; returns its id. */
  link: (url: string) => string | undefined;
  /** A new list; returns the numId its paragraphs use. */
  list?: (ordered: boolean, level: number) => string | undefined;
  /** Puts a picture into the media: its main blip and, for an SVG drawn for Word, its svgBlip (render.ts pictureIds). */
  picture?: (image: DecodedImage, cx: number, cy: number) => { main: string; svg?: string };
}

type ListContext = { ordered: boolean; n: number; numId: string | undefined }[];

interface Paragraph {
  pPr: string;
  runs: string[];
  /** Made for inline content outside any block element: it may join the host paragraph. */
  loose: boolean;
  /** A list item's bullet or number as text, for places without paragraphs. */
  label: string;
}

interface Piece {
  xml: string;
  /** Runs of a loose paragraph, or undefined for real blocks. */
  looseRuns: string | undefined;
  label: string;
}

class Builder {
  readonly pieces: Piece[] = [];
  private current: Paragraph | undefined;
  private drawing = 1000;

  constructor(
    private readonly basePPr: string,
    private readonly target: HtmlTarget,
  ) {}

  get out(): string[] {
    return this.pieces.map((p) => p.xml);
  }

  paragraph(pPr = this.basePPr, loose = false, label = ''): Paragraph {
    this.flush();
    this.current = { pPr, runs: [], loose, label };
    return this.current;
  }

  run(xml: string): void {
    if (!xml) return;
    (this.current ?? this.paragraph(this.basePPr, true)).runs.push(xml);
  }

  raw(xml: string): void {
    this.flush();
    if (xml) this.pieces.push({ xml, looseRuns: undefined, label: '' });
  }

  flush(): void {
    const c = this.current;
    if (c && (c.runs.length > 0 || !c.loose)) {
      this.pieces.push({ xml: `<w:p>${c.pPr}${c.runs.join('')}</w:p>`, looseRuns: c.loose ? c.runs.join('') : undefined, label: c.label });
    }
    this.current = undefined;
  }

  /** An inline picture at its own size, or at the size the HTML asks (`size` in CSS pixels; one side keeps the ratio). */
  image(src: string, props: RunProps, size: { width?: number; height?: number } = {}): void {
    if (!this.target.sink) return;
    let image;
    try {
      image = decodeImage(src, 'img');
    } catch {
      return; // a broken inline image is dropped, the text stays
    }
    const ratio = image.heightPx / image.widthPx;
    const widthPx = size.width ?? (size.height !== undefined ? size.height / ratio : image.widthPx);
    const heightPx = size.height ?? (size.width !== undefined ? size.width * ratio : image.heightPx);
    const scale = Math.min(1, MAX_IMAGE_EMU / (widthPx * EMU_PER_PIXEL));
    const cx = Math.max(1, Math.round(widthPx * EMU_PER_PIXEL * scale));
    const cy = Math.max(1, Math.round(heightPx * EMU_PER_PIXEL * scale));
    let ids: { main: string; svg?: string };
    try {
      ids = this.target.picture?.(image, cx, cy) ?? { main: this.target.sink.add(this.target.part, image) };
    } catch {
      return; // an SVG that cannot be drawn is dropped like a broken image
    }
    const id = this.drawing++;
    this.run(`<w:r>${serializeRunProps(props)}${inlinePicture(ids.main, cx, cy, id, `HTML image ${id}`, ids.svg)}</w:r>`);
  }
}

/** CSS pixels per unit of a length (96 to the inch). */
const PX_PER: Record<string, number> = { px: 1, pt: 96 / 72, pc: 16, in: 96, cm: 96 / 2.54, mm: 96 / 25.4, '': 1 };

/** A length in CSS pixels: `120`, `120px`, `3cm`; undefined for percentages, `auto` and the like. */
function cssPixels(value: string | undefined): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(px|pt|pc|in|cm|mm)?\s*$/i.exec(value ?? '');
  if (!match) return undefined;
  const px = Number(match[1]) * PX_PER[(match[2] ?? '').toLowerCase()]!;
  return px > 0 && px <= 100_000 ? px : undefined;
}

/** The size an <img> asks for: its style's width and height, else its attributes. */
function imageSize(element: Element): { width?: number; height?: number } {
  const style = new Map<string, string>();
  for (const declaration of (element.attribs.style ?? '').split(';')) {
    const colon = declaration.indexOf(':');
    if (colon > 0) style.set(declaration.slice(0, colon).trim().toLowerCase(), declaration.slice(colon + 1).trim());
  }
  const width = cssPixels(style.get('width')) ?? cssPixels(element.attribs.width);
  const height = cssPixels(style.get('height')) ?? cssPixels(element.attribs.height);
  return { ...(width !== undefined ? { width } : {}), ...(height !== undefined ? { height } : {}) };
}

function textRun(text: string, props: RunProps): string {
  const clean = text.replace(/[\r\n\t ]+/g, ' ');
  return clean ? `<w:r>${serializeRunProps(props)}<w:t xml:space="preserve">${escapeText(clean)}</w:t></w:r>` : '';
}

function indentPPr(base: string, level: number): string {
  const ind = `<w:ind w:left="${360 * (level + 1)}" w:hanging="360"/>`;
  if (!base) return `<w:pPr>${ind}</w:pPr>`;
  return base.replace(/<w:ind\b[^>]*\/>/, '').replace('</w:pPr>', `${ind}</w:pPr>`);
}

/** The host's paragraph properties with list numbering in schema order, its own indent dropped. */
function numberedPPr(base: string, level: number, numId: string): string {
  const numPr = `<w:numPr><w:ilvl w:val="${level}"/><w:numId w:val="${numId}"/></w:numPr>`;
  if (!base) return `<w:pPr>${numPr}</w:pPr>`;
  const pPr = base.replace(/<w:numPr>[\s\S]*?<\/w:numPr>/, '').replace(/<w:ind\b[^>]*\/>/, '');
  // numPr follows pStyle, keepNext, keepLines, pageBreakBefore, framePr and widowControl.
  let at = pPr.indexOf('>') + 1;
  for (const m of pPr.matchAll(/<w:(?:pStyle|keepNext|keepLines|pageBreakBefore|framePr|widowControl)\b[^>]*\/>/g))
    at = Math.max(at, m.index + m[0].length);
  return pPr.slice(0, at) + numPr + pPr.slice(at);
}

function walk(nodes: ChildNode[], props: RunProps, b: Builder, ctx: { basePPr: string; list: ListContext; target: HtmlTarget }): void {
  for (const node of nodes) {
    if (node.type === 'text') {
      b.run(textRun(node.data, props));
      continue;
    }
    if (node.type !== 'tag' && node.type !== 'script' && node.type !== 'style') continue;
    const element = node as Element;
    const tag = element.name.toLowerCase();
    if (DROPPED.has(tag)) continue;
    const inner = styled(props, element);
    if (tag === 'br') {
      b.run('<w:r><w:br/></w:r>');
    } else if (tag === 'img') {
      const src = element.attribs.src ?? '';
      if (/^data:image\//i.test(src)) b.image(src, inner, imageSize(element));
    } else if (tag === 'a') {
      const href = element.attribs.href ?? '';
      const relId = /^(https?:|mailto:)/i.test(href) ? ctx.target.link(href) : undefined;
      const sub = new Builder(ctx.basePPr, ctx.target);
      walk(element.children, inner, sub, ctx);
      sub.flush();
      const runs = sub.out.join('').replace(/<\/?w:p>|<w:pPr>[\s\S]*?<\/w:pPr>/g, '');
      b.run(relId ? `<w:hyperlink r:id="${relId}">${runs}</w:hyperlink>` : runs);
    } else if (tag === 'ul' || tag === 'ol') {
      const ordered = tag === 'ol';
      ctx.list.push({ ordered, n: 0, numId: ctx.target.list?.(ordered, Math.min(8, ctx.list.length)) });
      walk(element.children, props, b, ctx);
      ctx.list.pop();
      b.flush();
    } else if (tag === 'li') {
      const list = ctx.list[ctx.list.length - 1];
      const level = Math.min(8, Math.max(0, ctx.list.length - 1));
      const label = list ? textRun(list.ordered ? `${++list.n}.\u00a0` : '•\u00a0', props) : '';
      if (list?.numId) {
        b.paragraph(numberedPPr(ctx.basePPr, level, list.numId), false, label);
      } else {
        b.paragraph(indentPPr(ctx.basePPr, level));
        b.run(label);
      }
      walk(element.children, inner, b, ctx);
      b.flush();
    } else if (tag === 'table') {
      b.raw(table(element, props, ctx));
    } else if (BLOCKS.has(tag)) {
      b.paragraph();
      walk(element.children, inner, b, ctx);
      b.flush();
    } else {
      walk(element.children, inner, b, ctx);
    }
  }
}

function table(element: Element, props: RunProps, ctx: { basePPr: string; list: ListContext; target: HtmlTarget }): string {
  const rows: Element[] = [];
  const collect = (nodes: ChildNode[]) =>
    nodes.forEach((n) => {
      if (n.type !== 'tag') return;
      const e = n as Element;
      if (e.name === 'tr') rows.push(e);
      else if (['thead', 'tbody', 'tfoot'].includes(e.name)) collect(e.children);
    });
  collect(element.children);
  const columns = Math.max(
    1,
    ...rows.map((r) => r.children.filter((c) => c.type === 'tag' && ['td', 'th'].includes((c as Element).name)).length),
  );
  const width = Math.floor(9000 / columns);
  const border = (side: string) => `<w:${side} w:val="single" w:sz="4" w:space="0" w:color="auto"/>`;
  let xml =
    `<w:tbl><w:tblPr><w:tblW w:w="0" w:type="auto"/><w:tblBorders>${['top', 'left', 'bottom', 'right', 'insideH', 'insideV'].map(border).join('')}</w:tblBorders></w:tblPr>` +
    `<w:tblGrid>${`<w:gridCol w:w="${width}"/>`.repeat(columns)}</w:tblGrid>`;
  for (const row of rows) {
    xml += '<w:tr>';
    const cells = row.children.filter((c): c is Element => c.type === 'tag' && ['td', 'th'].includes((c as Element).name));
    for (let i = 0; i < columns; i++) {
      const cell = cells[i];
      const b = new Builder('', ctx.target);
      if (cell) {
        b.paragraph('');
        walk(cell.children, cell.name === 'th' ? new Map([...props, ['w:b', '<w:b/>']]) : props, b, { ...ctx, basePPr: '' });
      }
      b.flush();
      xml += `<w:tc><w:tcPr><w:tcW w:w="${width}" w:type="dxa"/></w:tcPr>${b.out.join('') || '<w:p/>'}</w:tc>`;
    }
    xml += '</w:tr>';
  }
  return rows.length ? `${xml}</w:tbl>` : '';
}

/**
 * The HTML for a field that sits in a paragraph with `pPr`. Inline content at the start and the
 * end joins the host paragraph (`leading`, `trailing`); `blocks` go between its two halves.
 * `inline` is everything as runs, for places that take no blocks.
 */
export function htmlToWordprocessingML(
  html: string,
  runProps: string,
  pPr: string,
  target: HtmlTarget,
): { leading: string; blocks: string; trailing: string; inline: string } {
  const document = parseDocument(html, { decodeEntities: true });
  const builder = new Builder(pPr, target);
  walk(document.children, parseRunProps(runProps), builder, { basePPr: pPr, list: [], target });
  builder.flush();
  const pieces = [...builder.pieces];
  const leading = pieces[0]?.looseRuns !== undefined ? pieces.shift()!.looseRuns! : '';
  const trailing = pieces.length > 0 && pieces[pieces.length - 1]!.looseRuns !== undefined ? pieces.pop()!.looseRuns! : '';
  const inline = builder.pieces
    .filter((piece) => piece.xml.startsWith('<w:p>'))
    .map((piece) => piece.looseRuns ?? piece.label + piece.xml.replace(/^<w:p>(<w:pPr>[\s\S]*?<\/w:pPr>)?|<\/w:p>$/g, ''))
    .join('<w:r><w:br/></w:r>');
  return { leading, blocks: pieces.map((p) => p.xml).join(''), trailing, inline };
}
