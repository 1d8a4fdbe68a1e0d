/**
 * A long table's parts as ODT (operations/longTable.ts): the office reads its own format in about
 * half the time it takes to import the same rows from DOCX, and lays them out the same. Nothing here
 * writes ODT of its own: the office converts a prototype once (ooxml/longTable.ts `rowShapes`: the
 * header rows, then one row of each shape with markers for its texts; the first part's also has
 * what precedes the table), and a part is that ODT with the part's rows, each its shape's ODT row
 * with the markers replaced by the row's own texts.
 * Whatever in the office's ODT is not plainly rows of paragraphs, spans and text keeps the parts DOCX.
 */
import { LONG_TABLE_BOOKMARK, rowTexts, TEXT_MARKER, type LongTableSplit } from '../ooxml/longTable.js';
import { escapeText } from '../ooxml/xml.js';
import { readZip, writeZip } from '../ooxml/zip.js';

/** What the prototype's ODT says, ready to make parts from (structured-cloned to worker threads). */
export interface OdtRows {
  /** The package's files but content.xml, in their order (the mimetype first). */
  files: [string, Uint8Array][];
  /**
   * content.xml through the table's header rows, cut where the number its pages start from goes;
   * one piece for the first part, which keeps the document's own numbering.
   */
  start: [string, string] | [string];
  /** Each shape's row: the markup between its texts, and which of the row's texts goes after each piece. */
  shapes: { pieces: string[]; texts: number[] }[];
  /** From the table's end on: for a part that is not the last, and for the last (null: the last part stays DOCX). */
  end: { middle: string; last: string | null };
  /** The table has no header rows: the bookmark by which the office finds it goes into a part's first row. */
  markFirstRow: boolean;
}

/** What the prototype was made from (ooxml/longTable.ts). */
export interface Prototype {
  headerRows: number;
  /** Columns of the table's grid. */
  columns: number;
  /** One DOCX row of each shape, in the prototype's order. */
  shapes: string[];
  /** Whether the body holds something after the table. */
  after: boolean;
  /** The first part's prototype: what precedes the table comes first, and the pages keep their numbers. */
  first?: boolean;
}

/** What a split table's prototype was made from, for `odtRows` to check the office's ODT against. */
export function prototypeOf(split: LongTableSplit, first = false): Prototype {
  return {
    headerRows: split.headerRows.length,
    columns: (split.tableStart.match(/<w:gridCol\b/g) ?? []).length,
    shapes: (split.shapes?.firsts ?? []).map((i) => split.rows[i]!),
    after: split.after.trim() !== '',
    ...(first ? { first } : {}),
  };
}

const BOOKMARK = `<text:bookmark text:name="${LONG_TABLE_BOOKMARK}"/>`;
/** Elements a shape's row may hold: cells, paragraphs, spans, spaces, tabs, line breaks. */
const PLAIN = /^(?:table:table-row|table:table-cell|table:covered-table-cell|text:p|text:span|text:s|text:tab|text:line-break)$/;
const ROW = /<table:table-row\b[^>]*>[\s\S]*?<\/table:table-row>/g;
const DECLS = /<text:(sequence|variable|user-field|dde-connection)-decls(?:\/>|>[\s\S]*?<\/text:\1-decls>)/g;

/** The prototype's ODT read into parts to be, or null when it is not what parts can be made from. */
export function odtRows(odt: Uint8Array, prototype: Prototype): OdtRows | null {
  const zip = readZip(odt);
  const bytes = zip.get('content.xml');
  if (!bytes) return null;
  // Page breaks where the office laid a document out (none here: it stores the prototype unlaid).
  const content = Buffer.from(bytes).toString('utf8').replaceAll('<text:soft-page-break/>', '');
  const text = /<office:text\b[^>]*>/.exec(content);
  const tableAt = content.indexOf('<table:table ', text?.index);
  if (!text || tableAt < 0) return null;
  // Only the first part's prototype has something before the table: paragraphs (ours is the first table).
  const preceding = content.slice(text.index + text[0].length, tableAt).replace(DECLS, '');
  if (prototype.first ? /<table:/.test(preceding) : preceding !== '') return null;
  const tableEnd = content.indexOf('</table:table>', tableAt);
  const tableTag = /^<table:table\b[^>]*>/.exec(content.slice(tableAt))![0];
  const inner = content.slice(tableAt + tableTag.length, tableEnd);
  if (tableEnd < 0 || /<table:table[\s>]/.test(inner)) return null;

  // The columns of the grid, then the header rows in a block of their own, then one row per shape.
  const header = /<table:table-header-rows>([\s\S]*?)<\/table:table-header-rows>/.exec(inner);
  const headerCount = header ? (header[1]!.match(ROW) ?? []).length : 0;
  if (headerCount !== prototype.headerRows) return null;
  const bodyFrom = header ? header.index + header[0].length : (/<table:table-row\b/.exec(inner)?.index ?? inner.length);
  const columns = inner.slice(0, header?.index ?? bodyFrom);
  const columnCount = Array.from(columns.matchAll(/<table:table-column\b[^>]*>/g)).reduce(
    (n, [tag]) => n + Number(/table:number-columns-repeated="(\d+)"/.exec(tag)?.[1] ?? 1),
    0,
  );
  if (columnCount !== prototype.columns) return null;
  const rows = inner.slice(bodyFrom).match(ROW) ?? [];
  if (rows.length !== prototype.shapes.length || rows.join('') !== inner.slice(bodyFrom)) return null;

  // The bookmark: in the header rows, or in the first row, from which it goes to each part's first row.
  if (content.split(BOOKMARK).length !== 2) return null;
  const markFirstRow = !header?.[0].includes(BOOKMARK);
  if (markFirstRow) {
    if (!rows[0]?.includes(BOOKMARK)) return null;
    rows[0] = rows[0].replace(BOOKMARK, '');
  }

  let base = 0;
  const shapes: OdtRows['shapes'] = [];
  for (const [s, row] of rows.entries()) {
    for (const [, name] of row.matchAll(/<\/?([\w:-]+)/g)) if (!PLAIN.test(name!)) return null;
    // The row's non-empty texts were numbered base, base + 1, ... in the prototype.
    const filled = rowTexts(prototype.shapes[s]!).flatMap((value, i) => (value ? [i] : []));
    const pieces: string[] = [];
    const texts: number[] = [];
    let from = 0;
    for (const m of row.matchAll(TEXT_MARKER)) {
      const n = parseInt(m[1]!, 36) - base;
      if (n < 0 || n >= filled.length || texts.includes(filled[n]!)) return null;
      pieces.push(row.slice(from, m.index));
      texts.push(filled[n]!);
      from = m.index + m[0].length;
    }
    if (texts.length !== filled.length) return null;
    pieces.push(row.slice(from));
    shapes.push({ pieces, texts });
    base += filled.length;
  }

  // The table's pages start from the number the prototype gave them: 1, on the table's own style
  // (the first part keeps the document's numbering).
  const head = content.slice(0, tableAt) + tableTag + inner.slice(0, bodyFrom);
  let start: OdtRows['start'] = [head];
  if (!prototype.first) {
    const styleName = /\btable:style-name="([^"]+)"/.exec(tableTag)?.[1];
    const style = styleName
      ? new RegExp(`<style:style\\b[^>]*\\bstyle:name="${styleName}"[^>]*>[\\s\\S]*?</style:style>`).exec(content)
      : null;
    const number = style ? style[0].indexOf('style:page-number="1"') : -1;
    if (!style || number < 0 || style.index > tableAt) return null;
    const cut = style.index + number + 'style:page-number="'.length;
    start = [head.slice(0, cut), head.slice(cut + 1)];
  }

  // After the table: the prototype's empty paragraph, then what follows the table in the document.
  const rest = content.slice(tableEnd + '</table:table>'.length);
  const empty = /^<text:p\b[^>]*\/>|^<text:p\b[^>]*>(?:(?!<text:p\b)[\s\S])*?<\/text:p>/.exec(rest);
  const close = rest.lastIndexOf('</office:text>');
  if (!empty || close < empty[0].length) return null;
  return {
    files: [...zip].filter(([name]) => name !== 'content.xml'),
    start,
    shapes,
    end: {
      middle: '</table:table>' + empty[0] + rest.slice(close),
      last: prototype.after ? '</table:table>' + rest.slice(empty[0].length) : null,
    },
    markFirstRow,
  };
}

/** A part's rows (DOCX markup, each with its shape) as an ODT package on pages numbered from `page`. */
export function longTablePartOdt(odt: OdtRows, rows: string[], shapeOf: number[], page: number, last: boolean): Uint8Array {
  const out: string[] = odt.start.length === 2 ? [odt.start[0], String(page), odt.start[1]] : [odt.start[0]];
  for (const [i, row] of rows.entries()) {
    const { pieces, texts } = odt.shapes[shapeOf[i]!]!;
    const values = rowTexts(row);
    let markup = pieces[0]!;
    for (const [k, index] of texts.entries()) markup += odfText(values[index] ?? '') + pieces[k + 1]!;
    out.push(i === 0 && odt.markFirstRow ? withBookmark(markup) : markup);
  }
  out.push(last ? odt.end.last! : odt.end.middle);
  return writeZip([...odt.files, ['content.xml', Buffer.from(out.join(''), 'utf8')]], 0);
}

/** Text as ODF markup: spaces that ODF would collapse (at either end, or after another) written as <text:s/>. */
export function odfText(value: string): string {
  return escapeText(value).replace(/ +/g, (run: string, at: number, all: string) => {
    const edge = at === 0 || at + run.length === all.length;
    if (!edge && run.length === 1) return run;
    const n = edge ? run.length : run.length - 1;
    return (edge ? '' : ' ') + (n === 1 ? '<text:s/>' : `<text:s text:c="${n}"/>`);
  });
}

/** The row with the bookmark at the end of its first paragraph. */
function withBookmark(row: string): string {
  const p = /<text:p\b([^>]*?)\/>|<\/text:p>/.exec(row)!;
  const marked = p[0] === '</text:p>' ? BOOKMARK + p[0] : `<text:p${p[1]}>${BOOKMARK}</text:p>`;
  return row.slice(0, p.index) + marked + row.slice(p.index + p[0].length);
}
