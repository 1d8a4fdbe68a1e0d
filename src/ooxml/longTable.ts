/**
 * A document whose body holds one very long table, cut at its rows into documents the office lays
 * out one after the other (operations/longTable.ts). LibreOffice's layout of one table grows much
 * faster than its rows (4,000 rows: 8.5 s; the same rows as 200-row tables: 2.6 s), so a long
 * table is laid out part by part, each part starting at a true page start: the header rows, then
 * the rows from the first row of the previous part's last page on. The cut works on the markup's
 * tags (w:tbl and w:tr only): one pass over the main document's markup, not a parse of it.
 */
import { OoxmlPackage } from './package.js';
import { laysOutInParts } from './layout.js';
import { packageNeedsFieldUpdate } from './fields.js';
import { writeZip } from './zip.js';
import { unescapeText } from './xml.js';

/** The body's long table and what surrounds it, as markup. */
export interface LongTableSplit {
  /** The package's parts but the main document, and the main document's name. */
  parts: [string, Uint8Array][];
  main: string;
  /** The main document up to and including <w:body>. */
  head: string;
  /** Body content before and after the table. */
  before: string;
  after: string;
  /** The table's start tag, properties and grid. */
  tableStart: string;
  /** Rows repeated at the top of each page (w:tblHeader), then the other rows. */
  headerRows: string[];
  rows: string[];
  /** The body's section properties, and the main document from </w:body> on. */
  sectPr: string;
  tail: string;
  /** The first page number of the document (the section's w:pgNumType w:start, or 1). */
  firstPage: number;
  /** The body rows' shapes, for parts written as ODT; null: parts are DOCX. */
  shapes: RowShapes | null;
  /** Whether the document has fields for the office to recompute (any but page numbers). */
  updateFields: boolean;
}

/** The bookmark by which the office finds the table in a part. */
export const LONG_TABLE_BOOKMARK = '_docsmith_rows';

const TAG = /<(\/?)w:(tbl|tr)(?=[\s>/])[^>]*?(\/?)>/g;

/**
 * The body's longest top-level table when it has at least `minRows` rows and the document can be
 * laid out in parts with the same pages as one layout: one section, nothing that counts or refers
 * across pages (ooxml/layout.ts; PAGE is fine, each part continues the numbering), no odd and even
 * headers, and a plain table (not floating, no nested tables, no vertically merged cells, which a
 * cut between rows would tear). Otherwise null.
 */
export function splitLongTable(docx: Buffer | OoxmlPackage, minRows: number): LongTableSplit | null {
  const pkg = docx instanceof OoxmlPackage ? docx : OoxmlPackage.read(docx);
  const main = pkg.mainDocument();
  const xml = pkg.text(main) ?? '';
  const body = /<w:body\b[^>]*>/.exec(xml);
  const bodyEnd = xml.lastIndexOf('</w:body>');
  if (!body || bodyEnd < 0) return null;
  const contentStart = body.index + body[0].length;
  // One section: the body's own sectPr, last, and no other.
  const sectStart = xml.indexOf('<w:sectPr');
  if (sectStart < contentStart || xml.indexOf('<w:sectPr', sectStart + 1) >= 0) return null;
  const sectEnd = xml.indexOf('</w:sectPr>', sectStart);
  if (sectEnd < 0 || xml.slice(sectEnd + '</w:sectPr>'.length, bodyEnd).trim() !== '') return null;

  // Top-level tables and their top-level rows.
  let best: { start: number; end: number; rows: [number, number][] } | undefined;
  let current: { start: number; end: number; rows: [number, number][] } | undefined;
  let depth = 0;
  let rowStart = -1;
  TAG.lastIndex = contentStart;
  for (let m = TAG.exec(xml); m && m.index < sectStart; m = TAG.exec(xml)) {
    const [tag, closing, name, selfClosing] = m;
    if (selfClosing) continue;
    if (name === 'tbl') {
      if (!closing) {
        if (depth === 0) current = { start: m.index, end: -1, rows: [] };
        depth++;
      } else if (--depth === 0 && current) {
        current.end = m.index + tag.length;
        if (!best || current.rows.length > best.rows.length) best = current;
      }
    } else if (depth === 1 && current) {
      if (!closing) rowStart = m.index;
      else current.rows.push([rowStart, m.index + tag.length]);
    }
  }
  if (!best || best.rows.length < minRows) return null;
  const tableStart = xml.slice(best.start, best.rows[0]![0]);
  const rows = best.rows.map(([s, e]) => xml.slice(s, e));
  if (/<w:tblpPr\b/.test(tableStart) || rows.some((row) => /<w:(?:tbl|vMerge)\b/.test(row))) return null;
  // Column widths from the grid, the same in every part: a grid that does not fit the rows makes
  // the office size the columns by the rows it is given, which differ from part to part.
  const columns = (tableStart.match(/<w:gridCol\b/g) ?? []).length;
  if (columns === 0 || rows.some((row) => gridColumnsOf(row) !== columns)) return null;
  if (xml.slice(best.rows.at(-1)![1], best.end) !== '</w:tbl>') return null;
  if (/<w:evenAndOddHeaders\b(?![^>]*w:val="(?:0|false|off)")/.test(pkg.text('word/settings.xml') ?? '')) return null;
  if (!laysOutInParts(pkg, true)) return null;

  const header = (row: string) => /<w:tblHeader\b(?![^>]*w:val="(?:0|false|off)")/.test(/<w:trPr\b[\s\S]*?<\/w:trPr>/.exec(row)?.[0] ?? '');
  let headerCount = 0;
  while (headerCount < rows.length && header(rows[headerCount]!)) headerCount++;
  const sectPr = xml.slice(sectStart, sectEnd + '</w:sectPr>'.length);
  const start = /<w:pgNumType\b[^>]*\bw:start="(\d+)"/.exec(sectPr);
  const split: LongTableSplit = {
    parts: [...pkg.parts].filter(([name]) => name !== main),
    main,
    head: xml.slice(0, contentStart),
    before: xml.slice(contentStart, best.start),
    after: xml.slice(best.end, sectStart),
    tableStart,
    headerRows: rows.slice(0, headerCount),
    rows: rows.slice(headerCount),
    sectPr,
    tail: xml.slice(bodyEnd),
    firstPage: start ? Number(start[1]) : 1,
    shapes: null,
    updateFields: packageNeedsFieldUpdate(pkg),
  };
  split.shapes = rowShapes(split);
  return split;
}

/** The grid columns a row spans: its cells, their spans, and the columns left out before and after it. */
function gridColumnsOf(row: string): number {
  let columns = 0;
  for (const m of row.matchAll(/<w:tc[\s>]|<w:(gridSpan|gridBefore|gridAfter) w:val="(\d+)"/g)) {
    if (!m[1]) columns++;
    else columns += Number(m[2]) - (m[1] === 'gridSpan' ? 1 : 0);
  }
  return columns;
}

/**
 * The main document of one part: rows [from, to) of the table under its header rows, with what
 * precedes the table in the first part and what follows it in the last, numbered from `page` on.
 * The table's first row carries LONG_TABLE_BOOKMARK for the office to find it.
 */
export function longTablePartXml(split: LongTableSplit, from: number, to: number, page: number): string {
  const first = from === 0;
  const last = to === split.rows.length;
  const rows = [...split.headerRows, ...split.rows.slice(from, to)];
  rows[0] = bookmarked(rows[0]!);
  return (
    split.head +
    (first ? split.before : '') +
    split.tableStart +
    rows.join('') +
    '</w:tbl>' +
    // A table may not end the body; the paragraph after it lands on the part's last page, which a
    // part that is not the last drops.
    (last ? split.after : '<w:p/>') +
    (first ? split.sectPr : numberedFrom(split.sectPr, page)) +
    split.tail
  );
}

/** The row with LONG_TABLE_BOOKMARK at the end of its first paragraph. */
function bookmarked(row: string): string {
  return row.replace(
    '</w:p>',
    `<w:bookmarkStart w:id="2147480000" w:name="${LONG_TABLE_BOOKMARK}"/><w:bookmarkEnd w:id="2147480000"/></w:p>`,
  );
}

/** The section's pages numbered from `page`, without a different first page (only the document's first page has it). */
function numberedFrom(sectPr: string, page: number): string {
  let out = sectPr.replace(/<w:titlePg\b[^>]*\/>/g, '');
  if (/<w:pgNumType\b/.test(out)) {
    out = out.replace(/<w:pgNumType\b([^>]*?)(\/?)>/, (_m, attrs: string, close: string) => {
      const kept = attrs.replace(/\s+w:start="[^"]*"/, '');
      return `<w:pgNumType${kept} w:start="${page}"${close}>`;
    });
  } else {
    // CT_SectPr's order: pgNumType comes before these.
    const next =
      /<w:(?:cols|formProt|vAlign|noEndnote|titlePg|textDirection|bidi|rtlGutter|docGrid|printerSettings|sectPrChange)\b|<\/w:sectPr>/.exec(
        out,
      )!;
    out = `${out.slice(0, next.index)}<w:pgNumType w:start="${page}"/>${out.slice(next.index)}`;
  }
  return out;
}

/** One part as a DOCX package. */
export function longTablePartDocx(split: Pick<LongTableSplit, 'parts' | 'main'>, xml: string): Buffer {
  return writeZip([...split.parts, [split.main, Buffer.from(xml, 'utf8')]]);
}

/**
 * The body rows as a few shapes: rows alike but for their texts, as rows merged from one template
 * row are. Parts may then be written as ODT (odf/longTable.ts) from the office's own ODT of a
 * prototype holding one row of each shape.
 */
export interface RowShapes {
  /** Each body row's shape, an index into the prototype's rows after the header rows. */
  of: number[];
  /** Each shape's first row. */
  firsts: number[];
  /**
   * The main document of a part holding the header rows and one row of each shape whose texts are
   * markers (TEXT_MARKER, numbered across the prototype in order), followed by an empty paragraph,
   * then what follows the table, on pages numbered from 1.
   */
  prototype: string;
  /**
   * The same for the first part: what precedes the table, then as above, on the document's own
   * pages; null when what precedes the table is more than paragraphs of plain text (the first
   * part stays DOCX).
   */
  first: string | null;
}

/** More shapes than this and the table's parts stay DOCX: rows are not the copies of a few template rows. */
export const MAX_ROW_SHAPES = 32;

/** The marker standing for a row's text in the prototype: private-use characters no template holds. */
export const textMarker = (n: number): string => `\uE000${n.toString(36)}\uE001`;
export const TEXT_MARKER = /\uE000([0-9a-z]+)\uE001/g;

const ROW_TAG = /<(\/?)([\w:]+)[^>]*?(\/?)>/g;
/** Elements a row may hold outside properties for its shape to carry over: paragraphs, runs, texts, tabs and breaks. */
const PLAIN = new Set([
  'w:tr',
  'w:tc',
  'w:p',
  'w:r',
  'w:t',
  'w:tab',
  'w:br',
  'w:cr',
  'w:proofErr',
  'w:lastRenderedPageBreak',
  'w:noBreakHyphen',
  'w:softHyphen',
]);
const PROPERTIES = new Set(['w:trPr', 'w:tcPr', 'w:pPr', 'w:rPr', 'w:tblPrEx']);
const TEXT = /(<w:t(?=[\s>/])[^>]*?)(?:\/>|>([^<]*)<\/w:t>)/g;
/** Attributes that differ between copies of a row without changing it. */
const IDS = /\s(?:w14:paraId|w14:textId|w:rsid\w*)="[^"]*"/g;

/** The texts of a row's w:t elements, in order, as text. */
export function rowTexts(row: string): string[] {
  return Array.from(row.matchAll(TEXT), (m) => unescapeText(m[2] ?? ''));
}

/** The body rows' shapes and the prototype, or null when a row holds more than plain text or the rows have too many shapes. */
export function rowShapes(split: Omit<LongTableSplit, 'shapes'>): RowShapes | null {
  const shapes = new Map<string, number>();
  const firsts: number[] = [];
  const of: number[] = [];
  for (const [i, row] of split.rows.entries()) {
    let unsafe = false;
    const key = row.replace(IDS, '').replace(TEXT, (_m, start: string, content?: string) => {
      if (!content) return `${start}/>`;
      // Tabs and line ends inside a text, or spaces at its ends that the markup does not keep: the office reads them its own way.
      const value = content.includes('&#') ? unescapeText(content) : content;
      if (/[\t\r\n]/.test(value) || (!start.includes('xml:space="preserve"') && value !== value.trim())) unsafe = true;
      return `${start}>\u0001</w:t>`;
    });
    if (unsafe) return null;
    let shape = shapes.get(key);
    if (shape === undefined) {
      // Rows of one shape have the same markup but for texts and ids: one look at each shape's.
      if (shapes.size === MAX_ROW_SHAPES || !plainContent(row)) return null;
      shapes.set(key, (shape = shapes.size));
      firsts.push(i);
    }
    of.push(shape);
  }
  let marker = 0;
  const marked = firsts.map((i) =>
    split.rows[i]!.replace(TEXT, (whole, start: string, content?: string) => (content ? `${start}>${textMarker(marker++)}</w:t>` : whole)),
  );
  const rows = [...split.headerRows, ...marked];
  rows[0] = bookmarked(rows[0]!);
  const table = split.tableStart + rows.join('') + '</w:tbl><w:p/>' + split.after;
  const prototype = split.head + table + numberedFrom(split.sectPr, 1) + split.tail;
  // The first part's: what precedes the table too, when that is plain text, on the document's own pages.
  const first = plainContent(split.before) ? split.head + split.before + table + split.sectPr + split.tail : null;
  return { of, firsts, prototype, first };
}

/** Whether a row, or body content, holds only paragraphs of runs of text, tabs and breaks (with any properties), and no numbering. */
function plainContent(row: string): boolean {
  let inProperties = 0;
  for (const [, closing, name, selfClosing] of row.matchAll(ROW_TAG)) {
    if (inProperties > 0) {
      if (name === 'w:numPr') return false;
      if (PROPERTIES.has(name!) && !selfClosing) inProperties += closing ? -1 : 1;
      continue;
    }
    if (PROPERTIES.has(name!)) {
      if (!closing && !selfClosing) inProperties++;
      continue;
    }
    if (!PLAIN.has(name!)) return false;
  }
  return true;
}
