import { escapeText } from '../ooxml/xml.js';
import { InputError, ProcessingTimeoutError } from '../errors.js';
import { filterRows } from './filter.js';
import { PPR_ORDER } from '../ooxml/properties-order.js';
import type { Segment } from './compile.js';
import { evaluateField, type FieldContext } from './fields.js';
import { withoutDocsmithSteps } from './instruction.js';
import { checkedRawXml, endsWithTable } from './rawxml.js';
import { MISSING, Scope, type JsonObject } from './scope.js';
import { decodeImage, fitExtent, inlinePicture, pointBlip, type DecodedImage, type MediaSink } from './images.js';
import { rasterSize, type SvgRasteriser } from '../render/svg.js';
import { htmlToWordprocessingML, isHtmlValue } from './html.js';
import { drawBarcode, wordBarcodeExtent, withTxText, type DrawnBarcode } from './barcodes.js';

export interface RenderOptions {
  removeEmptyFields: boolean;
  removeEmptyBlocks: boolean;
  removeEmptyLines: boolean;
  removeEmptyImages: boolean;
  mergeHtml: boolean;
  /** Values every record shares, read by fields named `$c.…` (Carbone's complement). */
  complement?: JsonObject;
  /** docxtemplater's raw XML values go in, checked (src/merge/rawxml.ts): the operator allows them. */
  rawXml?: boolean;
}

/** Where merged images go: the output document's media, related from this part. */
export interface MediaTarget {
  sink: MediaSink;
  part: string;
  /**
   * The document goes to the office (PDF and the other formats), which shows no svgBlip: barcodes
   * go in as SVG main pictures, drawn as vectors, without the PNG Word needs.
   */
  officeBound?: boolean;
  /** Draws SVG pictures as PNG for Word (src/render/svg.ts); without it an SVG is the main picture. */
  rasterise?: SvgRasteriser;
}

/**
 * A merged picture in the output's media. An SVG gets a PNG main picture drawn from it for Word
 * (the SVG in the svgBlip extension) when the merge has a rasteriser and the document is not
 * bound for the office, which shows the SVG main picture as vectors.
 */
function pictureIds(media: MediaTarget, image: DecodedImage, cx: number, cy: number, what: string): { main: string; svg?: string } {
  if (image.format.extension !== 'svg' || media.officeBound || !media.rasterise) return { main: media.sink.add(media.part, image) };
  const { widthPx, heightPx } = rasterSize(cx, cy);
  const png = media.rasterise(image.bytes, widthPx, heightPx, what);
  const svg = media.sink.add(media.part, image);
  return {
    main: media.sink.add(media.part, { bytes: png, format: { extension: 'png', contentType: 'image/png' }, widthPx, heightPx }),
    svg,
  };
}

/** A drawn barcode in the output's media: its main blip (PNG for Word, or the SVG for the office) and its svgBlip. */
function barcodeIds(media: MediaTarget, drawn: DrawnBarcode): { main: string; svg?: string } {
  const svg = media.sink.add(media.part, drawn.svg);
  return drawn.png ? { main: media.sink.add(media.part, drawn.png), svg } : { main: svg };
}

interface State extends FieldContext {
  options: RenderOptions;
  /** When the request's time is up (epoch ms): rendering stops with a 504 by itself, so the thread need not be killed. */
  deadline?: number;
  /** A merge on the event loop (workers/inline.ts): it stops as soon as it outgrows this. */
  budget?: RenderBudget;
  steps: number;
  media: MediaTarget | undefined;
  /** Fields that produced visible output so far (for removeEmptyLines). */
  visible: number;
  /** Where the open paragraphs, tables and cells start in the output (they may be cut back there). */
  marks: number[];
  /** Markup came from the data (an HTML value, raw XML, a drawn barcode), not only from the template. */
  fromData: boolean;
  /** Paragraphs of the template rendered and kept so far: a cell that rendered one need not look for it. */
  paragraphs: number;
  /**
   * Raw XML took its paragraph's place: the paragraph's end is dropped from what follows (null),
   * or a paragraph with these properties opens again (after a table, or to keep a section break).
   */
  reopen?: string | null;
}

/** T with every property present, an optional one as possibly undefined: a literal of it must list them all. */
type EveryProperty<T> = { [K in keyof Required<T>]: T[K] };

/** How far back from a piece's end the host paragraph's start is looked for (its properties fit many times). */
const RAW_LOOKBACK = 16 * 1024;

/** The host paragraph's start, when nothing but its properties was written yet. */
const PARAGRAPH_START = /<w:p\b[^>]*>(?:<w:pPr\s*\/>|<w:pPr>[\s\S]*?<\/w:pPr>)?$/;

/**
 * Puts raw XML where its paragraph was (as docxtemplater does): the paragraph's start is taken
 * back when nothing else was written in it, else the paragraph is closed first. Returns what
 * `reopen` says of the rest.
 */
function inPlaceOfParagraph(out: string[], xml: string, hostPPr: string): string | null {
  const last = out.length - 1;
  // Looked for in the piece's end only: gathered pieces are long, and a document may have many such values.
  const piece = last >= 0 ? out[last]! : '';
  const from = Math.max(0, piece.length - RAW_LOOKBACK);
  const start = PARAGRAPH_START.exec(from > 0 ? piece.slice(from) : piece);
  if (!start) {
    out.push('</w:p>', xml);
    return hostPPr;
  }
  out[last] = piece.slice(0, from + start.index);
  out.push(xml);
  return endsWithTable(xml) || hostPPr.includes('<w:sectPr') ? hostPPr : null;
}

/** What a merge on the event loop may spend (workers/inline.ts): steps (each a piece of template or a field) and time. */
export interface RenderBudget {
  steps: number;
  /** performance.now() past which it stops. */
  until: number;
  /** Characters of XML it may write, in all its parts (counted before they are joined). */
  chars: number;
}

/** A merge outgrew its budget (`time`: its time; else its steps or characters, which the template and data decide): it is done again in a thread. */
export class OverBudgetError extends Error {
  constructor(readonly time = false) {
    super('the merge outgrew its budget on the event loop');
  }
}

function spend(budget: RenderBudget): void {
  if (--budget.steps < 0) throw new OverBudgetError();
  if (performance.now() > budget.until) throw new OverBudgetError(true);
}

/** Pieces of one open region gathered into one string: fewer live strings for the collector (tests vary it). */
export const gathering = { at: 2048 };

/**
 * A long table renders hundreds of thousands of small strings that all live until the end; the
 * garbage collector copies each of them. Once the innermost open region (or the document, when
 * none is open) holds `gathering.at` pieces, they are joined onto its first piece after its start,
 * so only the joined string lives on. Cutting a region back to its start and looking for rows or
 * paragraphs in it work as before.
 */
function gather(out: string[], marks: number[]): void {
  const base = (marks.length > 0 ? marks[marks.length - 1]! : -1) + 1;
  if (out.length - base < gathering.at) return;
  const fresh = out.slice(base + 1).join('');
  out.length = base + 1;
  out[base] += fresh;
}

const EMPTY_SCOPE = Scope.of({});

const LINE_OR_TAB = /[\r\n\t]/;

/** A value as runs with the field's formatting: line breaks and tabs become real ones. */
export function valueRuns(text: string, runProps: string): string {
  if (text === '') return '';
  if (!LINE_OR_TAB.test(text)) return `<w:r>${runProps}<w:t xml:space="preserve">${escapeText(text)}</w:t></w:r>`;
  let body = '';
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  lines.forEach((line, i) => {
    if (i > 0) body += '<w:br/>';
    line.split('\t').forEach((piece, j) => {
      if (j > 0) body += '<w:tab/>';
      if (piece) body += `<w:t xml:space="preserve">${escapeText(piece)}</w:t>`;
    });
  });
  return `<w:r>${runProps}${body}</w:r>`;
}

/**
 * Longer values in a table cell are split into paragraphs: LibreOffice lays out a table row that
 * spans many pages in time that grows with the square of its one paragraph (100,000 characters:
 * 45-65 s as one paragraph, 2 s as paragraphs of 1,000).
 */
const LONG_VALUE = 4000;
const CHUNK = 1000;

function splitIntoParagraphs(text: string, runProps: string, hostPPr: string): string {
  const chunks: string[] = [];
  let rest = text.replace(/\r\n?/g, '\n');
  while (rest.length > CHUNK) {
    // Prefer a line break, then a space, near the chunk size; a token without either is cut.
    const window = rest.slice(0, CHUNK * 1.5);
    let at = window.lastIndexOf('\n');
    if (at < CHUNK / 2) at = window.lastIndexOf(' ', CHUNK);
    if (at < CHUNK / 2) at = CHUNK;
    chunks.push(rest.slice(0, at));
    rest = rest.slice(rest[at] === '\n' || rest[at] === ' ' ? at + 1 : at);
  }
  chunks.push(rest);
  // The paragraphs in between share the host's style; contextual spacing keeps them together.
  const between = withContextualSpacing(hostPPr.replace(/<w:sectPr\b[\s\S]*?<\/w:sectPr>/, ''));
  return chunks.map((chunk) => valueRuns(chunk, runProps)).join(`</w:p><w:p>${between}`);
}

function withContextualSpacing(pPr: string): string {
  if (pPr === '' || /^<w:pPr\s*\/>$/.test(pPr)) return '<w:pPr><w:contextualSpacing/></w:pPr>';
  if (pPr.includes('<w:contextualSpacing')) return pPr;
  const after = PPR_ORDER.slice(PPR_ORDER.indexOf('w:contextualSpacing') + 1);
  const next = [...pPr.matchAll(/<(w:[A-Za-z]+)\b/g)].find((m) => after.includes(m[1]!));
  return next
    ? `${pPr.slice(0, next.index)}<w:contextualSpacing/>${pPr.slice(next.index)}`
    : pPr.replace(/<\/w:pPr>$/, '<w:contextualSpacing/></w:pPr>');
}

/** The merge runs synchronously, so the time limit's timer cannot fire: it checks the clock itself. */
export function checkDeadline(deadline: number | undefined): void {
  if (deadline !== undefined && Date.now() > deadline) {
    throw new ProcessingTimeoutError('The merge took longer than the processing limit and was cancelled.');
  }
}

const ROW = /<w:tr[\s>]/;
const PARAGRAPH = /<w:p[\s>/]/;

function someMatch(pieces: string[], from: number, pattern: RegExp): boolean {
  for (let i = from; i < pieces.length; i++) if (pattern.test(pieces[i]!)) return true;
  return false;
}

function render(segments: Segment[], state: State, out: string[]): void {
  for (const segment of segments) {
    if ((++state.steps & 4095) === 0) checkDeadline(state.deadline);
    if (state.budget !== undefined) spend(state.budget);
    if (typeof segment === 'string') {
      if (state.reopen !== undefined) {
        // After raw XML: its host paragraph's end goes, or what follows gets a paragraph again.
        const reopen = state.reopen;
        state.reopen = undefined;
        if (reopen === null && segment.startsWith('</w:p>')) {
          out.push(segment.slice(6));
          continue;
        }
        out.push(`<w:p>${reopen ?? ''}`);
      }
      out.push(segment);
      continue;
    }
    if (out.length >= gathering.at) gather(out, state.marks);
    switch (segment.kind) {
      case 'field': {
        const result = evaluateField(segment.field, state);
        if (result.kind === 'text' && state.options.mergeHtml && isHtmlValue(result.text)) {
          state.visible++;
          state.fromData = true;
          const media = state.media;
          // The HTML's paragraphs take the host's properties, but never its section break.
          const blockPPr = (segment.field.hostPPr ?? '').replace(/<w:sectPr\b[\s\S]*?<\/w:sectPr>/, '');
          const html = htmlToWordprocessingML(result.text, segment.field.runProps, blockPPr, {
            sink: media?.sink,
            part: media?.part ?? '',
            link: (url) => media?.sink.addLink(media.part, url),
            list: (ordered, level) => media?.sink.addList(ordered, level),
            picture: media ? (image, cx, cy) => pictureIds(media, image, cx, cy, 'An image of an HTML value') : undefined,
          });
          // Directly in a paragraph, the HTML's paragraphs split it; elsewhere they become lines.
          if (segment.field.hostPPr === undefined) out.push(html.inline);
          else if (!html.blocks) out.push(html.leading, html.trailing);
          else out.push(html.leading, `</w:p>${html.blocks}<w:p>${segment.field.hostPPr}`, html.trailing);
        } else if (result.kind === 'barcode') {
          if (state.media) {
            const drawn = drawBarcode(result.value, result.spec, result.field, state.media.officeBound);
            const ids = barcodeIds(state.media, drawn);
            const { cx, cy } = wordBarcodeExtent(result.spec, drawn.svg);
            out.push(`<w:r>${segment.field.runProps}${inlinePicture(ids.main, cx, cy, 1, 'Barcode', ids.svg)}</w:r>`);
            state.visible++;
            state.fromData = true;
          }
        } else if (result.kind === 'raw') {
          // No value: the paragraph goes, as in docxtemplater.
          if (result.xml !== '' && !state.options.rawXml)
            throw new InputError(`{@${result.field}}: raw XML values are off on this server.`);
          const xml = result.xml === '' ? '' : checkedRawXml(result.xml, result.field);
          if (xml !== '') state.visible++;
          state.fromData = true;
          state.reopen = inPlaceOfParagraph(out, xml, segment.field.hostPPr ?? '');
        } else if (result.kind === 'text' && segment.inCell && segment.field.hostPPr !== undefined && result.text.length > LONG_VALUE) {
          state.visible++;
          out.push(splitIntoParagraphs(result.text, segment.field.runProps, segment.field.hostPPr));
        } else if (result.kind === 'text') {
          if (result.text !== '') state.visible++;
          out.push(valueRuns(result.text, segment.field.runProps));
        } else if (result.kind === 'keep' || !state.options.removeEmptyFields) {
          state.visible++;
          out.push(withoutDocsmithSteps(segment.field.original));
        }
        break;
      }
      case 'block': {
        const all = segment.mode ? state.scope.section(segment.name, segment.mode) : state.scope.rows(segment.name);
        const rows = all && segment.filter ? filterRows(all, segment.filter, state.culture) : all;
        const outer = state.scope;
        const outerNext = state.nextRecord;
        if (rows && rows.length > 0) {
          // NEXT inside a block moves to the block's next row (several rows per repetition).
          let index = 0;
          state.nextRecord = () => {
            if (index + 1 >= rows.length) {
              index = rows.length;
              state.scope = outer.enter({});
              return false;
            }
            state.scope = outer.enter(rows[++index]!);
            return true;
          };
          for (; index < rows.length; index++) {
            state.scope = outer.enter(rows[index]!);
            render(segment.body, state, out);
          }
        } else if (!state.options.removeEmptyBlocks && !segment.mode) {
          state.scope = EMPTY_SCOPE;
          state.nextRecord = () => false;
          render(segment.body, state, out);
        }
        state.scope = outer;
        state.nextRecord = outerNext;
        break;
      }
      case 'chart': {
        if (!state.media) {
          out.push(segment.xml);
          break;
        }
        // This repetition's rows of the chart's block; none shows an empty chart, like an empty block.
        const rows = state.scope.rows(segment.name) ?? [];
        const relId = state.media.sink.addChart(state.media.part, segment.relId, segment.name, rows);
        out.push(segment.xml.replace(new RegExp(`(<(?:c:)?chart\\b[^>]*?\\br:id=")${segment.relId}"`), `$1${relId}"`));
        state.visible++;
        break;
      }
      case 'image': {
        const value = segment.names.map((name) => state.scope.get(name)).find((v) => v !== MISSING);
        if (segment.barcode && (typeof value === 'string' || typeof value === 'number') && value !== '' && state.media) {
          const text = String(value);
          const drawn = drawBarcode(text, segment.barcode.spec, segment.names[segment.names.length - 1]!, state.media.officeBound);
          const ids = barcodeIds(state.media, drawn);
          const xmlId = state.media.sink.addCustomXml(state.media.part, withTxText(segment.barcode.xml, text));
          out.push(
            pointBlip(segment.xml, segment.embed, ids.main, ids.svg).replace(
              new RegExp(`(NetControl\\b[^>]*?\\br:id=")${segment.barcode.relId}"`),
              `$1${xmlId}"`,
            ),
          );
          state.visible++;
        } else if (typeof value === 'string' && value !== '' && state.media) {
          const field = segment.names[segment.names.length - 1]!;
          const image = decodeImage(value, field);
          const { cx, cy } = fitExtent(image, segment);
          const ids = pictureIds(state.media, image, cx, cy, `The value for the image "${field}"`);
          out.push(
            pointBlip(segment.xml, segment.embed, ids.main, ids.svg)
              .replace(/(<wp:extent\b[^>]*?)cx="\d+"([^>]*?)cy="\d+"/, `$1cx="${cx}"$2cy="${cy}"`)
              .replace(/(<a:xfrm\b[^>]*>[\s\S]*?<a:ext\b[^>]*?)cx="\d+"([^>]*?)cy="\d+"/, `$1cx="${cx}"$2cy="${cy}"`),
          );
          state.visible++;
        } else if (value === undefined || value === null || value === '') {
          if (!state.options.removeEmptyImages) out.push(segment.xml);
        } else {
          out.push(segment.xml);
        }
        break;
      }
      case 'paragraph': {
        // Rendered in place and cut off again if it turns out empty: no array per paragraph.
        const before = state.visible;
        const paragraphs = state.paragraphs;
        const start = out.length;
        state.marks.push(start);
        render(segment.body, state, out);
        state.marks.pop();
        if (state.options.removeEmptyLines && segment.onlyFields && state.visible === before) {
          out.length = start;
          state.paragraphs = paragraphs;
        } else {
          state.paragraphs++;
        }
        break;
      }
      case 'table':
      case 'cell': {
        const start = out.length;
        const paragraphs = state.paragraphs;
        out.push(segment.open);
        state.marks.push(start);
        render(segment.body, state, out);
        state.marks.pop();
        if (segment.kind === 'table') {
          // A table left without rows goes.
          if (someMatch(out, start + 1, ROW)) out.push(segment.close);
          else {
            out.length = start;
            state.paragraphs = paragraphs;
          }
        } else {
          // A cell must keep a paragraph. One the template's paragraph kept is there (each starts
          // with its <w:p>); markup from the data may have taken a paragraph's start back, so then it is looked for.
          const rendered = state.paragraphs > paragraphs && !state.fromData;
          if (!rendered && !someMatch(out, start + 1, PARAGRAPH)) out.push('<w:p/>');
          out.push(segment.close);
        }
        break;
      }
    }
  }
}

/**
 * Renders one document. `records` are the ones not merged yet: the document starts with the
 * first, and NEXT / NEXTIF fields move on through them. Returns the XML and how many it used.
 */
export function renderSegments(
  segments: Segment[],
  context: Omit<FieldContext, 'scope' | 'nextRecord'> & { deadline?: number; budget?: RenderBudget },
  records: JsonObject[],
  options: RenderOptions,
  media?: MediaTarget,
): { xml: string; used: number; markupFromData: boolean } {
  const out: string[] = [];
  let used = 1;
  // Every property from the start, in one order: one shape, so the loads in render() stay monomorphic.
  // Typed so that a property added to the context or the state fails to compile until it is listed here.
  const state: EveryProperty<State> = {
    culture: context.culture,
    now: context.now,
    timeZone: context.timeZone,
    deadline: context.deadline,
    budget: context.budget,
    scope: Scope.of(records[0] ?? {}, options.complement),
    nextRecord: undefined,
    options,
    media,
    visible: 0,
    steps: 0,
    marks: [],
    fromData: false,
    paragraphs: 0,
    reopen: undefined,
  };
  state.nextRecord = () => {
    if (used >= records.length) {
      state.scope = EMPTY_SCOPE;
      return false;
    }
    state.scope = Scope.of(records[used++]!, options.complement);
    return true;
  };
  render(segments, state, out);
  if (state.budget !== undefined) {
    for (const piece of out) state.budget.chars -= piece.length;
    if (state.budget.chars < 0) throw new OverBudgetError();
  }
  // A NEXT at the very end (a label sheet whose every label ends with one) moves to a record
  // of which nothing is merged: that record starts the next document instead of being lost.
  if (used > 1 && state.scope !== EMPTY_SCOPE && state.scope.readCount === 0) used--;
  return { xml: out.join(''), used, markupFromData: state.fromData };
}
