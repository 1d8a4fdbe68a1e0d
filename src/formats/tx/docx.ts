/**
 * A read TX document as a DOCX package, written as Word writes one: runs with their direct
 * formatting, merge and other Word fields as complex fields (their text as the result), tables
 * with fixed widths, borders, shading and header rows, txmb_ marks as block bookmarks (around
 * table rows when they span whole rows), and the page size and margins.
 */
import { escapeAttr, escapeText } from '../../ooxml/xml.js';
import { newDocx, type Image, type Link, type NewPart } from '../../ooxml/newPackage.js';
import type { TxCell, TxCellFormat, TxChange, TxDocument, TxFrame, TxMark, TxProtection, TxRun, TxStory, TxTable } from './read.js';
import type { TxSignatureBox, TxTextFrame } from './read.js';
import type { TxField, TxFormField, TxPicture } from './read.js';
import { isLink, picturesOf } from './read.js';
import { rasterSize, svgBlipExtension, type SvgRasteriser } from '../../render/svg.js';
import { BLANK_PNG } from '../../inert/pictures.js';

const A_NS = 'http://schemas.openxmlformats.org/drawingml/2006/main';
const PIC_NS = 'http://schemas.openxmlformats.org/drawingml/2006/picture';
/** Word 2010's shapes (MS-ODRAWXML): how Word writes a text box in line with the text. */
const WPS_NS = 'http://schemas.microsoft.com/office/word/2010/wordprocessingShape';
/** The name a signature box's floating picture goes by in Word (read back as one by fromDocx.ts). */
export const SIGNATURE_BOX_NAME = 'TX Signature Box';

/**
 * Merge blocks marked as older TX versions mark them, by a `BlockStart_name` and a `BlockEnd_name`
 * field of no text: the same block as a `txmb_name` mark (a bookmark; over whole rows, a row block).
 * A start without its end is no block.
 */
function blockMarks(doc: TxStory): Range[] {
  const at = (name: string) => {
    const fields = [...doc.fields].filter(([, field]) => field.block === name).map(([id]) => id);
    return doc.runs.find((run) => fields.includes(run.field))?.start;
  };
  const blocks: Range[] = [];
  for (const field of doc.fields.values()) {
    const name = /^BlockStart_(.+)$/.exec(field.block ?? '')?.[1];
    const start = name === undefined ? undefined : at(`BlockStart_${name}`);
    const end = name === undefined ? undefined : at(`BlockEnd_${name}`);
    if (name !== undefined && start !== undefined && end !== undefined && end > start) blocks.push({ name: `txmb_${name}`, start, end });
  }
  // Any other target is a place: a bookmark of no length.
  for (const [id, field] of doc.fields) {
    if (field.block === undefined || /^Block(Start|End)_./.test(field.block)) continue;
    const start = doc.runs.find((run) => run.field === id)?.start;
    if (start !== undefined) blocks.push({ name: bookmarkName(field.block), start, end: start });
  }
  return blocks;
}

/** A name as Word takes a bookmark's: letters, digits and underscores, not starting with a digit, at most 40. */
function bookmarkName(name: string): string {
  const word = name.replace(/[^\p{L}\p{N}_]/gu, '_');
  return (/^\p{N}/u.test(word) ? `_${word}` : word).slice(0, 40);
}

/** A range the writer marks: a bookmark (a block, or a link target of no length), or a permission range (an editable region's id). */
type Range = Pick<TxMark, 'name' | 'start' | 'end'> & { permission?: number };

/** A table placed in the text: its cells grouped by row, and the tables nested in its cells. */
interface Placed {
  table: TxTable;
  start: number;
  end: number;
}

/** The first index in ascending `values` whose value is at least `min`. */
function firstAtLeast(values: readonly number[], min: number): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (values[middle]! < min) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Values of `map` under `key`, kept in lists. */
function add<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * Writes one story (the body, a header or a footer) as WordprocessingML block content. Lookups go
 * through indexes built once (runs by position, marks by start and end), so the work grows with
 * the story, not with its square: a TX file may hold 65,535 runs, paragraphs and marks.
 */
/** How a story is written: its first bookmark id, and for a frame's story its frame properties and its part's links. */
interface WriterOptions {
  /** The first bookmark id: ids are unique across the document's stories. */
  bookmarkId?: number;
  /** `w:framePr` of every paragraph (a text frame's story). */
  framePr?: string;
  /** The hyperlink list of the part the story is written to, shared with the story that anchors it. */
  links?: string[];
  /** Each paragraph lists its tab stops (they are not the document's one regular grid). */
  tabs?: boolean;
  /** The page's width between its margins: where a right tab stop at 0 stands. */
  textWidth?: number;
  /** The pictures of the part the story is written to, and the document's drawing ids (unique across parts). */
  images?: Image[];
  drawings?: { next: number };
  /** Draws SVG pictures as the PNG Word shows (the SVG in the svgBlip extension); without it an SVG is the main picture. */
  rasterise?: SvgRasteriser;
}

class Writer {
  private readonly out: string[] = [];
  private readonly openMarks = new Map<Range, number>();
  /** Hyperlink addresses, as the relationships of the part this story is written to. */
  readonly links: string[];
  /** Pictures, as the relationships and media of the part this story is written to. */
  readonly images: Image[];
  private readonly drawings: { next: number };
  /** Each picture by the position of its U+0001 character. */
  private readonly picturesAt = new Map<number, TxPicture>();
  /** Page number and count fields (runs of no text) by their place. */
  private readonly pageRuns = new Map<number, TxRun[]>();
  private bookmarkId: number;
  /** Text frames by the start of the paragraph that anchors them. */
  private readonly framesAt = new Map<number, TxFrame[]>();
  /** The tracked insertion the runs being written belong to (a w:ins left open between them). */
  private insOpen: TxChange | null = null;
  /** The run covering each position of the text. */
  private readonly runAt: Int32Array;
  private readonly paragraphStarts: number[];
  private readonly marksFrom = new Map<number, Range[]>();
  private readonly marksTo = new Map<number, Range[]>();
  /** Where marks start or end, ascending. */
  private readonly markPositions: number[];
  /** Each table's row starts and row ends, and the marks that span whole rows of some table. */
  private readonly rows = new Map<TxTable, { starts: Set<number>; ends: Set<number> }>();
  private readonly rowMarks = new Set<Range>();

  constructor(
    private readonly doc: TxStory,
    private readonly options: WriterOptions = {},
  ) {
    this.bookmarkId = options.bookmarkId ?? 0;
    this.links = options.links ?? [];
    this.images = options.images ?? [];
    this.drawings = options.drawings ?? { next: 1 };
    for (const run of doc.runs)
      if (run.start === run.end && run.field && doc.fields.get(run.field)?.page) add(this.pageRuns, run.start, run);
    let picture = 0;
    for (let i = doc.text.indexOf('\u0001'); i >= 0; i = doc.text.indexOf('\u0001', i + 1))
      this.picturesAt.set(i, doc.pictures![picture++]!);
    this.runAt = new Int32Array(doc.text.length);
    doc.runs.forEach((run, i) => this.runAt.fill(i, run.start, run.end));
    this.paragraphStarts = doc.paragraphs.map((p) => p.start);
    for (const frame of doc.frames ?? [])
      add(this.framesAt, this.paragraphStarts[Math.max(0, firstAtLeast(this.paragraphStarts, frame.anchor + 1) - 1)]!, frame);
    // A link target is a bookmark of no length (formats/tx/read.ts TxTarget).
    const targets = (doc.targets ?? []).map(({ name, position }) => ({ name: bookmarkName(name), start: position, end: position }));
    // An editable region is a permission range for everyone.
    const regions = (doc.regions ?? []).map(({ start, end, id }) => ({ name: '', start, end, permission: id }));
    const blocks = blockMarks(doc);
    for (const mark of [...doc.marks, ...blocks, ...targets, ...regions]) {
      add(this.marksFrom, mark.start, mark);
      add(this.marksTo, mark.end, mark);
    }
    this.markPositions = [...new Set([...this.marksFrom.keys(), ...this.marksTo.keys()])].sort((a, b) => a - b);
    for (const table of doc.tables) {
      const starts = new Set<number>();
      const ends = new Set<number>();
      for (let row = 0; row < table.rows; row++) {
        starts.add(table.cells[row * table.columns]!.start);
        ends.add(table.cells[(row + 1) * table.columns - 1]!.end);
      }
      this.rows.set(table, { starts, ends });
      for (const mark of [...doc.marks, ...blocks]) if (starts.has(mark.start) && ends.has(mark.end)) this.rowMarks.add(mark);
    }
  }

  private runOf(position: number): TxRun | undefined {
    return position >= 0 && position < this.runAt.length ? this.doc.runs[this.runAt[position]!] : undefined;
  }

  content(): string {
    this.range(0, this.doc.text.length + 1, this.placed(this.doc.tables));
    return this.out.join('');
  }

  private placed(tables: TxTable[]): Placed[] {
    return tables
      .map((table) => ({ table, start: table.cells[0]!.start, end: table.cells[table.cells.length - 1]!.end }))
      .sort((a, b) => a.start - b.start);
  }

  /** Paragraphs and tables from `from` to `to` (exclusive); `tables` are those that may start here. */
  private range(from: number, to: number, tables: Placed[]): void {
    const { paragraphs } = this.doc;
    for (let i = firstAtLeast(this.paragraphStarts, from); i < paragraphs.length; i++) {
      const paragraph = paragraphs[i]!;
      if (paragraph.start >= to) break;
      const table = tables.find((t) => t.start === paragraph.start && t.end <= to);
      if (table) {
        this.table(
          table,
          tables.filter((t) => t !== table && t.start >= table.start && t.end <= table.end),
        );
        while (i + 1 < paragraphs.length && paragraphs[i + 1]!.start < table.end) i++;
        continue;
      }
      this.paragraph(paragraph.start, paragraph.end, paragraph.format);
    }
  }

  private table(placed: Placed, inner: Placed[]): void {
    const { table } = placed;
    const { cellFormats } = this.doc;
    // The grid: every cell's edges (a merged cell keeps its own place, so rows agree on them).
    const edges = [...new Set(table.cells.flatMap((cell) => [cell.left, cell.left + cell.width]))].sort((a, b) => a - b);
    const grid = edges
      .slice(1)
      .map((edge, i) => `<w:gridCol w:w="${edge - edges[i]!}"/>`)
      .join('');
    const span = (cell: TxCell) => edges.filter((edge) => edge > cell.left && edge < cell.left + cell.width).length + 1;
    this.out.push(
      `<w:tbl><w:tblPr><w:tblW w:w="0" w:type="auto"/><w:tblLayout w:type="fixed"/><w:tblCellMar><w:left w:w="0" w:type="dxa"/><w:right w:w="0" w:type="dxa"/></w:tblCellMar><w:tblLook w:val="0000" w:firstRow="0" w:lastRow="0" w:firstColumn="0" w:lastColumn="0" w:noHBand="0" w:noVBand="0"/></w:tblPr><w:tblGrid>${grid}</w:tblGrid>`,
    );
    for (let row = 0; row < table.rows; row++) {
      const cells = table.cells.slice(row * table.columns, (row + 1) * table.columns);
      const rowStart = cells[0]!.start;
      const rowEnd = cells[cells.length - 1]!.end;
      // A mark over whole rows is a row block: its bookmark sits between the rows, as TX writes DOCX.
      for (const mark of this.marksFrom.get(rowStart) ?? []) if (!this.openMarks.has(mark) && this.spansRows(mark, table)) this.open(mark);
      const header = cells.every((cell) => cellFormats[cell.format]!.headerRow);
      this.out.push(`<w:tr>${header ? '<w:trPr><w:tblHeader/></w:trPr>' : ''}`);
      cells.forEach((cell, column) => {
        // A cell merged into the one before it is part of that one's span; one merged into the one
        // above continues its vertical merge, which the cell above starts.
        if (cell.merged?.left) return;
        const below = row + 1 < table.rows ? table.cells[(row + 1) * table.columns + column] : undefined;
        const vertical = cell.merged?.up ? 'continue' : below?.merged?.up ? 'restart' : undefined;
        this.cell(cell, inner, span(cell), vertical);
      });
      this.out.push('</w:tr>');
      for (const mark of this.marksTo.get(rowEnd) ?? []) if (this.openMarks.has(mark) && this.spansRows(mark, table)) this.close(mark);
    }
    this.out.push('</w:tbl>');
  }

  private spansRows(mark: Range, table: TxTable): boolean {
    const { starts, ends } = this.rows.get(table)!;
    return starts.has(mark.start) && ends.has(mark.end);
  }

  private cell(cell: TxCell, inner: Placed[], gridSpan = 1, vMerge?: 'restart' | 'continue'): void {
    const format: TxCellFormat = this.doc.cellFormats[cell.format]!;
    // TX keeps sides as left, top, right, bottom; CT_TcBorders and CT_TcMar want top, left, bottom, right.
    const sides = [
      ['top', 1],
      ['left', 0],
      ['bottom', 3],
      ['right', 2],
    ] as const;
    const borders = sides
      .map(([side, i]) => {
        const width = format.borders[i]!;
        if (width === 0) return `<w:${side} w:val="nil"/>`;
        // Border widths in eighths of a point, 2 to 96.
        const size = Math.min(96, Math.max(2, Math.round((width / 20) * 8)));
        return `<w:${side} w:val="single" w:sz="${size}" w:space="0" w:color="${format.borderColours[i] ?? 'auto'}"/>`;
      })
      .join('');
    // TX measures the distance to the text from the border's outer edge; Word from its inner edge.
    const margins = sides
      .map(([side, i]) => `<w:${side} w:w="${format.padding[i]! + (i % 2 === 0 ? format.borders[i]! : 0)}" w:type="dxa"/>`)
      .join('');
    const shading = format.shading ? `<w:shd w:val="clear" w:color="auto" w:fill="${format.shading}"/>` : '';
    this.out.push(
      // CT_TcPr's order: tcW, gridSpan, vMerge, tcBorders, shd, tcMar.
      `<w:tc><w:tcPr><w:tcW w:w="${cell.width}" w:type="dxa"/>${gridSpan > 1 ? `<w:gridSpan w:val="${gridSpan}"/>` : ''}` +
        `${vMerge ? `<w:vMerge${vMerge === 'restart' ? ' w:val="restart"' : ''}/>` : ''}<w:tcBorders>${borders}</w:tcBorders>${shading}<w:tcMar>${margins}</w:tcMar></w:tcPr>`,
    );
    const before = this.out.length;
    this.range(
      cell.start,
      cell.end,
      inner.filter((t) => t.start >= cell.start && t.end <= cell.end),
    );
    // A cell always holds a paragraph, and ends with one (a nested table is followed by one).
    if (this.out.length === before || this.out[this.out.length - 1] === '</w:tbl>') this.out.push('<w:p/>');
    this.out.push('</w:tc>');
  }

  private open(mark: Range): void {
    if (mark.permission !== undefined) {
      this.out.push(`<w:permStart w:id="${mark.permission}" w:edGrp="everyone"/>`);
      this.openMarks.set(mark, mark.permission);
      return;
    }
    const id = this.bookmarkId++;
    this.out.push(`<w:bookmarkStart w:id="${id}" w:name="${escapeAttr(mark.name)}"/>`);
    // A link target has no length: it closes where it opens.
    if (mark.start === mark.end) this.out.push(`<w:bookmarkEnd w:id="${id}"/>`);
    else this.openMarks.set(mark, id);
  }

  private close(mark: Range): void {
    const element = mark.permission !== undefined ? 'permEnd' : 'bookmarkEnd';
    this.out.push(`<w:${element} w:id="${this.openMarks.get(mark)!}"/>`);
    this.openMarks.delete(mark);
  }

  /** One paragraph: its runs (the mark itself is the paragraph's end, not text), fields and marks. */
  private paragraph(start: number, end: number, formatIndex: number): void {
    const { text, runs, paraFormats } = this.doc;
    const format = paraFormats[formatIndex]!;
    const contentEnd = end > start && text[end - 1] === '\n' ? end - 1 : end;
    const line =
      format.atLeast !== undefined
        ? ` w:line="${format.atLeast}" w:lineRule="atLeast"`
        : format.lineSpacing === 100
          ? ''
          : ` w:line="${Math.round(format.lineSpacing * 2.4)}" w:lineRule="auto"`;
    // CT_PPrBase's order: keepNext, keepLines, framePr, tabs, spacing, jc.
    const keepNext = (format.keepNext ? '<w:keepNext/>' : '') + (format.keepLines ? '<w:keepLines/>' : '');
    // Left stops when they are not the document's one grid; decimal and right stops always (right at 0: the right margin).
    const tabStops = [
      ...(this.options.tabs ? format.tabs.map((pos) => ['left', pos] as const) : []),
      ...(format.decimalTabs ?? []).map((pos) => ['decimal', pos] as const),
      ...(format.rightTabs ?? []).map((pos) => ['right', pos === 0 ? (this.options.textWidth ?? pos) : pos] as const),
    ];
    const tabs = tabStops.length
      ? `<w:tabs>${[...new Map(tabStops.map(([align, pos]) => [`${align}${pos}`, [align, pos] as const])).values()]
          .sort((a, b) => a[1] - b[1])
          .map(([align, pos]) => `<w:tab w:val="${align}" w:pos="${pos}"/>`)
          .join('')}</w:tabs>`
      : '';
    // CT_PPrBase's order: ... spacing, ind, ..., jc.
    const ind = format.indent
      ? `<w:ind w:left="${format.indent.left}" w:right="${format.indent.right}"${firstLineAttr(format.indent.firstLine)}/>`
      : '';
    const jc = ind + (format.alignment === 'left' ? '' : `<w:jc w:val="${format.alignment}"/>`);
    // A paragraph mark inserted while changes were tracked.
    const markChange = contentEnd < end ? this.changeAt(contentEnd) : undefined;
    const markRPr = markChange ? `<w:rPr>${this.insTag(markChange, true)}</w:rPr>` : '';
    // A frame is written where its anchor's paragraph starts: Word's text frames are paragraphs before it,
    // a floating picture (a signature box) is the paragraph's first run.
    const frames = this.framesAt.get(start) ?? [];
    for (const frame of frames) if (!('signature' in frame) && !frame.placement) this.frame(frame);
    this.out.push(
      `<w:p><w:pPr>${keepNext}${this.options.framePr ?? ''}${tabs}<w:spacing w:before="${format.spaceBefore}" w:after="${format.spaceAfter}"${line}/>${jc}${markRPr}</w:pPr>`,
    );
    for (const frame of frames) {
      if ('signature' in frame) this.out.push(this.signatureBox(frame));
      else if (frame.placement) this.out.push(this.floatingFrame(frame));
    }
    let at = start;
    const boundaries = new Set<number>([start, contentEnd]);
    if (start < contentEnd)
      for (let i = this.runAt[start]! + 1; i < runs.length && runs[i]!.start < contentEnd; i++) boundaries.add(runs[i]!.start);
    for (let i = firstAtLeast(this.markPositions, start + 1); i < this.markPositions.length && this.markPositions[i]! < contentEnd; i++)
      boundaries.add(this.markPositions[i]!);
    for (const change of this.doc.changes ?? [])
      for (const edge of [change.start, change.end]) if (edge > start && edge < contentEnd) boundaries.add(edge);
    const stops = [...boundaries].sort((a, b) => a - b);
    this.marksAt(start, false);
    for (let k = 0; k + 1 < stops.length; k++) {
      const from = stops[k]!;
      const to = stops[k + 1]!;
      if (from !== start) this.marksAt(from, false);
      this.pageFieldsAt(from);
      const run = this.runOf(from)!;
      const previous = this.runOf(from - 1);
      const next = this.runOf(to);
      const field = run.field;
      const begins = field !== 0 && (from === start || previous?.field !== field);
      const ends = field !== 0 && (to === contentEnd || next?.field !== field);
      const link = field !== 0 && isLink(this.doc.fields.get(field)!);
      const form = field !== 0 ? this.doc.fields.get(field)!.form : undefined;
      if (form) {
        // A form field is its one character: written whole where it begins.
        this.insFor(this.changeAt(from));
        if (begins) this.formField(this.doc.fields.get(field)!, form, run);
        at = to;
        this.marksAt(to, true);
        continue;
      }
      // A hyperlink cannot stand inside a w:ins: the insertion closes around its tags.
      if (begins && link) {
        this.closeIns();
        this.fieldBegin(field, run);
      }
      this.insFor(this.changeAt(from));
      if (begins && !link) this.fieldBegin(field, run);
      this.text(text.slice(from, to), run, from);
      if (ends && link) {
        this.closeIns();
        this.out.push('</w:hyperlink>');
      } else if (ends) this.out.push(`<w:r>${this.runProperties(run)}<w:fldChar w:fldCharType="end"/></w:r>`);
      at = to;
      this.marksAt(to, true);
    }
    this.closeIns();
    if (contentEnd > start) this.pageFieldsAt(contentEnd);
    // Targets where the paragraph's text ends (a segment's end is never a place to open one).
    if (contentEnd > start) for (const mark of this.marksFrom.get(contentEnd) ?? []) if (mark.start === mark.end) this.open(mark);
    // Marks that end with the paragraph (after its mark) close in it.
    for (const mark of [...this.openMarks.keys()]) if (!this.rowMarks.has(mark) && mark.end > at && mark.end <= end) this.close(mark);
    this.out.push('</w:p>');
  }

  /** Page number and page count fields (runs of no text) at a place of the text: Word's PAGE and NUMPAGES. */
  private pageFieldsAt(position: number): void {
    for (const run of this.pageRuns.get(position) ?? []) {
      const rPr = this.runProperties(run);
      const instruction = this.doc.fields.get(run.field)!.page === 'number' ? 'PAGE' : 'NUMPAGES';
      this.out.push(
        `<w:r>${rPr}<w:fldChar w:fldCharType="begin"/></w:r><w:r>${rPr}<w:instrText xml:space="preserve"> ${instruction} </w:instrText></w:r>` +
          `<w:r>${rPr}<w:fldChar w:fldCharType="separate"/></w:r><w:r>${rPr}<w:t>1</w:t></w:r><w:r>${rPr}<w:fldChar w:fldCharType="end"/></w:r>`,
      );
    }
  }

  private changeAt(position: number): TxChange | undefined {
    return this.doc.changes?.find((change) => change.start <= position && position < change.end);
  }

  /** A tracked insertion's element: its id (unique with the bookmarks'), no author (TX stores none here), its time. */
  private insTag(change: TxChange, empty = false): string {
    const date = change.time.toISOString().replace(/\.\d{3}Z$/, 'Z');
    return `<w:ins w:id="${this.bookmarkId++}" w:author="" w:date="${date}"${empty ? '/' : ''}>`;
  }

  /** Opens the runs' insertion, closing another first; none closes any. */
  private insFor(change: TxChange | undefined): void {
    if (change === this.insOpen) return;
    this.closeIns();
    if (!change) return;
    this.out.push(this.insTag(change));
    this.insOpen = change;
  }

  private closeIns(): void {
    if (!this.insOpen) return;
    this.out.push('</w:ins>');
    this.insOpen = null;
  }

  /**
   * A text frame as Word's frame paragraphs: its size (at least its height, so no text is cut), its
   * offset from the margin and from the anchoring paragraph, text flowing around it.
   */
  private frame(frame: TxTextFrame): void {
    const framePr = `<w:framePr w:w="${frame.width}" w:h="${frame.height}" w:hRule="atLeast" w:wrap="around" w:vAnchor="text" w:hAnchor="margin" w:x="${frame.x}" w:y="${frame.y}"/>`;
    this.out.push(this.inner(frame.story, { framePr }));
  }

  /** A story inside this one (a frame's, a text box's): written to this part, its ids following this story's. */
  private inner(story: TxStory, options: Pick<WriterOptions, 'framePr' | 'textWidth'>): string {
    const writer = new Writer(story, {
      ...options,
      bookmarkId: this.bookmarkId,
      links: this.links,
      images: this.images,
      drawings: this.drawings,
      tabs: this.options.tabs,
      ...(this.options.rasterise ? { rasterise: this.options.rasterise } : {}),
    });
    const content = writer.content();
    this.bookmarkId = writer.bookmarkId;
    return content;
  }

  /** Marks inside paragraphs (not over whole table rows) open at their start and close at their end. */
  private marksAt(position: number, closing: boolean): void {
    if (closing) for (const mark of this.marksTo.get(position) ?? []) if (this.openMarks.has(mark)) this.close(mark);
    if (!closing)
      for (const mark of this.marksFrom.get(position) ?? []) if (!this.openMarks.has(mark) && !this.rowMarks.has(mark)) this.open(mark);
  }

  private fieldBegin(id: number, run: TxRun): void {
    const field = this.doc.fields.get(id)!;
    if (field.target !== undefined) {
      this.out.push(`<w:hyperlink w:anchor="${escapeAttr(field.target)}" w:history="1">`);
      return;
    }
    if (field.link) {
      // A relative path as Word writes it: spaces escaped.
      this.links.push(/^[a-z][a-z0-9+.-]*:/i.test(field.link) ? field.link : field.link.replace(/ /g, '%20'));
      this.out.push(`<w:hyperlink r:id="rIdL${this.links.length}" w:history="1">`);
      return;
    }
    const instruction = field.instruction
      .map((token, i) => (i > 0 && !token.startsWith('\\') && /\s/.test(token) ? `"${token}"` : token))
      .join(' ');
    const rPr = this.runProperties(run);
    this.out.push(
      `<w:r>${rPr}<w:fldChar w:fldCharType="begin"/></w:r><w:r>${rPr}<w:instrText xml:space="preserve"> ${escapeText(instruction)} </w:instrText></w:r><w:r>${rPr}<w:fldChar w:fldCharType="separate"/></w:r>`,
    );
  }

  /**
   * A form field as Word writes it: text and drop-down fields as legacy form fields (FORMTEXT,
   * FORMDROPDOWN with their items), a date field as a date content control; empty, as Word shows an
   * unfilled field (five en spaces).
   */
  private formField(field: TxField, form: TxFormField, run: TxRun): void {
    const rPr = this.runProperties(run);
    const name = escapeAttr((field.name ?? '').slice(0, 65));
    const empty = `<w:r>${rPr}<w:t xml:space="preserve">${'\u2002'.repeat(5)}</w:t></w:r>`;
    if (form.kind === 'date') {
      this.out.push(
        `<w:sdt><w:sdtPr>${rPr}<w:alias w:val="${name}"/><w:tag w:val="${name}"/><w:id w:val="${this.bookmarkId++}"/><w:date><w:lid w:val="en-US"/><w:storeMappedDataAs w:val="dateTime"/><w:calendar w:val="gregorian"/></w:date></w:sdtPr><w:sdtContent>${empty}</w:sdtContent></w:sdt>`,
      );
      return;
    }
    if (form.kind === 'checkbox') {
      // Checked when it shows its checked character; Word's check box has no result text.
      const checked = this.doc.text.slice(run.start, run.end) === form.checked ? 1 : 0;
      this.out.push(
        `<w:r>${rPr}<w:fldChar w:fldCharType="begin"><w:ffData><w:name w:val="${name}"/><w:enabled/><w:calcOnExit w:val="0"/><w:checkBox><w:sizeAuto/><w:default w:val="${checked}"/></w:checkBox></w:ffData></w:fldChar></w:r>` +
          `<w:r>${rPr}<w:instrText xml:space="preserve"> FORMCHECKBOX </w:instrText></w:r><w:r>${rPr}<w:fldChar w:fldCharType="end"/></w:r>`,
      );
      return;
    }
    const kind =
      form.kind === 'text'
        ? '<w:textInput/>'
        : `<w:ddList>${form.items.map((item) => `<w:listEntry w:val="${escapeAttr(item)}"/>`).join('')}</w:ddList>`;
    const result =
      form.kind === 'dropdown' && form.items.length
        ? `<w:r>${rPr}<w:t xml:space="preserve">${escapeText(form.items[0]!)}</w:t></w:r>`
        : empty;
    this.out.push(
      `<w:r>${rPr}<w:fldChar w:fldCharType="begin"><w:ffData><w:name w:val="${name}"/><w:enabled/><w:calcOnExit w:val="0"/>${kind}</w:ffData></w:fldChar></w:r>` +
        `<w:r>${rPr}<w:instrText xml:space="preserve"> ${form.kind === 'text' ? 'FORMTEXT' : 'FORMDROPDOWN'} </w:instrText></w:r>` +
        `<w:r>${rPr}<w:fldChar w:fldCharType="separate"/></w:r>${result}<w:r>${rPr}<w:fldChar w:fldCharType="end"/></w:r>`,
    );
  }

  /** A picture in line with the text, at its own size times its scaling, as Word writes one. */
  private drawing(picture: TxPicture): string {
    if (picture.box) return this.textBox(picture, picture.box.story);
    const id = this.drawings.next++;
    const cx = Math.round((picture.width * picture.scaleX * 635) / 100);
    const cy = Math.round((picture.height * picture.scaleY * 635) / 100);
    return (
      `<w:drawing><wp:inline distT="0" distB="0" distL="0" distR="0"><wp:extent cx="${cx}" cy="${cy}"/><wp:docPr id="${id}" name="Picture ${id}"/>` +
      `${this.graphic(picture, id, cx, cy)}</wp:inline></w:drawing>`
    );
  }

  /**
   * A signature box as the nearest Word has: the picture it shows, floating at its offset from the
   * text area or from its paragraph, text above and below it. Its name says what it was (fromDocx.ts
   * reads it back as one).
   */
  private signatureBox(box: TxSignatureBox): string {
    const id = this.drawings.next++;
    const [cx, cy] = [box.width * 635, box.height * 635];
    return floating(box, id, `${SIGNATURE_BOX_NAME} ${id}`, this.graphic(box.signature, id, cx, cy));
  }

  /**
   * A text frame measured from the text area or from its paragraph (TX's kinds 1 and 2): a Word
   * text box floating there, which holds tables and pictures as the frame does, text above and below.
   */
  private floatingFrame(frame: TxTextFrame): string {
    const id = this.drawings.next++;
    const content = this.inner(frame.story, { textWidth: frame.width });
    return floating(frame, id, `Text Box ${id}`, textBoxGraphic(frame.width * 635, frame.height * 635, content));
  }

  /** A DrawingML picture of `cx` x `cy` EMU, its image in this part's media (an SVG beside the PNG Word shows). */
  private graphic(picture: TxPicture, id: number, cx: number, cy: number): string {
    const relationship = `rIdP${this.images.length + 1}`;
    let blip = `<a:blip r:embed="${relationship}"/>`;
    if (picture.linked !== undefined) this.images.push({ id: relationship, type: 'png', data: BLANK_PNG });
    else if (picture.type === 'svg' && this.options.rasterise) {
      const { widthPx, heightPx } = rasterSize(cx, cy);
      const png = this.options.rasterise(Buffer.from(picture.data), widthPx, heightPx, "The TX document's SVG picture");
      this.images.push({ id: relationship, type: 'png', data: png });
      const svg = `rIdP${this.images.length + 1}`;
      this.images.push({ id: svg, type: 'svg', data: picture.data });
      blip = `<a:blip r:embed="${relationship}"><a:extLst>${svgBlipExtension(svg)}</a:extLst></a:blip>`;
    } else this.images.push({ id: relationship, type: picture.type, data: picture.data });
    return (
      `<a:graphic xmlns:a="${A_NS}"><a:graphicData uri="${PIC_NS}"><pic:pic xmlns:pic="${PIC_NS}"><pic:nvPicPr><pic:cNvPr id="${id}" name="Picture ${id}"/><pic:cNvPicPr/></pic:nvPicPr>` +
      `<pic:blipFill>${blip}<a:stretch><a:fillRect/></a:stretch></pic:blipFill>` +
      `<pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="${cx}" cy="${cy}"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr></pic:pic></a:graphicData></a:graphic>`
    );
  }

  /** A text box in line with the text (a Word 2010 shape), its text the box's story, at the box's size. */
  private textBox(picture: TxPicture, story: TxStory): string {
    const id = this.drawings.next++;
    const cx = picture.width * 635;
    const cy = picture.height * 635;
    const content = this.inner(story, { textWidth: picture.width });
    return (
      `<w:drawing><wp:inline distT="0" distB="0" distL="0" distR="0"><wp:extent cx="${cx}" cy="${cy}"/><wp:docPr id="${id}" name="Text Box ${id}"/>` +
      `${textBoxGraphic(cx, cy, content)}</wp:inline></w:drawing>`
    );
  }

  /** Text with its breaks: U+000B a line break, U+000C a page break, tabs as tabs, U+0001 its picture. */
  private text(value: string, run: TxRun, from: number): void {
    const rPr = this.runProperties(run);
    const breaks: Record<string, string> = { '\t': '<w:tab/>', '\u000b': '<w:br/>', '\u000c': '<w:br w:type="page"/>' };
    let content = '';
    let textFrom = 0;
    const flush = (to: number) => {
      if (to > textFrom) content += `<w:t xml:space="preserve">${escapeText(value.slice(textFrom, to))}</w:t>`;
    };
    for (let i = 0; i < value.length; i++) {
      const picture = value[i] === '\u0001' ? this.picturesAt.get(from + i) : undefined;
      const mark = picture ? this.drawing(picture) : breaks[value[i]!];
      if (!mark) continue;
      flush(i);
      content += mark;
      textFrom = i + 1;
    }
    flush(value.length);
    if (content) this.out.push(`<w:r>${rPr}${content}</w:r>`);
  }

  private runProperties(run: TxRun): string {
    const format = this.doc.charFormats[run.format]!;
    const face = escapeAttr(format.face);
    return (
      `<w:rPr><w:rFonts w:ascii="${face}" w:hAnsi="${face}" w:cs="${face}"/>` +
      (format.bold ? '<w:b/>' : '') +
      (format.italic ? '<w:i/>' : '') +
      (format.strike ? '<w:strike/>' : '') +
      (run.colour ? `<w:color w:val="${run.colour}"/>` : '') +
      `<w:sz w:val="${format.halfPoints}"/><w:szCs w:val="${format.halfPoints}"/>` +
      // CT_RPr's order: u before shd.
      (format.underline ? '<w:u w:val="single"/>' : '') +
      (run.background ? `<w:shd w:val="clear" w:color="auto" w:fill="${run.background}"/>` : '') +
      '</w:rPr>'
    );
  }
}

// TX's [Normal]: Arial 10 pt, no spacing; its default tab stops every 2 cm.
const STYLES =
  '<w:docDefaults><w:rPrDefault><w:rPr><w:rFonts w:ascii="Arial" w:hAnsi="Arial" w:cs="Arial" w:eastAsia="Arial"/><w:sz w:val="20"/><w:szCs w:val="20"/><w:lang w:val="en-US"/></w:rPr></w:rPrDefault><w:pPrDefault><w:pPr><w:spacing w:after="0" w:line="240" w:lineRule="auto"/></w:pPr></w:pPrDefault></w:docDefaults><w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/><w:qFormat/></w:style><w:style w:type="table" w:default="1" w:styleId="TableNormal"><w:name w:val="Normal Table"/><w:tblPr><w:tblInd w:w="0" w:type="dxa"/><w:tblCellMar><w:top w:w="0" w:type="dxa"/><w:left w:w="108" w:type="dxa"/><w:bottom w:w="0" w:type="dxa"/><w:right w:w="108" w:type="dxa"/></w:tblCellMar></w:tblPr></w:style>';
/** The ids Word gives the hash algorithms it protects documents with (ECMA-376 cryptAlgorithmSid). */
const ALGORITHM_SIDS: Record<string, number> = { 'SHA-1': 4, 'SHA-256': 12, 'SHA-384': 13, 'SHA-512': 14 };

/** A protected document's protection, written as Word writes it (before the default tab stop, in CT_Settings' order). */
function protectionSetting(protection: TxProtection | undefined): string {
  if (!protection) return '';
  const { edit, enforced, algorithm, hash, salt, spinCount } = protection;
  const password =
    algorithm && hash && salt && spinCount
      ? ` w:cryptProviderType="rsaAES" w:cryptAlgorithmClass="hash" w:cryptAlgorithmType="typeAny" w:cryptAlgorithmSid="${ALGORITHM_SIDS[algorithm]!}" w:cryptSpinCount="${spinCount}" w:hash="${hash}" w:salt="${salt}"`
      : '';
  return `<w:documentProtection w:edit="${edit}" w:enforcement="${enforced ? 1 : 0}"${password}/>`;
}

const settings = (defaultTabStop: number, protection: TxProtection | undefined) =>
  `${protectionSetting(protection)}<w:defaultTabStop w:val="${defaultTabStop}"/><w:compat><w:compatSetting w:name="compatibilityMode" w:uri="http://schemas.microsoft.com/office/word" w:val="15"/></w:compat>`;

/** TX's default stops, every 2 cm, where a document has no paragraph formats to say otherwise. */
const TX_DEFAULT_TAB = 1134;

/**
 * The interval of the one regular grid of tab stops (d, 2d, ... as TX sets them by default) that
 * every paragraph format of the document with stops has: Word's default tab stop then says it for
 * all, and no paragraph lists its stops. Undefined when the stops differ anywhere.
 */
function regularTabs(doc: TxDocument): number | undefined {
  const stories = [doc, doc.header, doc.footer, doc.firstHeader, doc.firstFooter, ...textFrames(doc).map((f) => f.story)].filter(
    (s): s is TxStory => s !== undefined,
  );
  // A format with no stops at all takes the default too.
  const formats = stories.flatMap((story) => story.paraFormats).filter((format) => format.tabs.length > 0);
  const interval = formats[0]?.tabs[0] ?? TX_DEFAULT_TAB;
  const regular = (tabs: number[]) => tabs.length === 14 && tabs.every((pos, i) => pos === (i + 1) * interval);
  return formats.every((format) => regular(format.tabs)) ? interval : undefined;
}

/** A story's hyperlinks as relationships rIdL1, ... (Writer names them so). */
const linksOf = (writer: Writer): Link[] => writer.links.map((link, i) => [`rIdL${i + 1}`, link]);

/** Word writes a first-line indent or a hanging one, never a negative first line. */
function firstLineAttr(firstLine: number): string {
  if (firstLine > 0) return ` w:firstLine="${firstLine}"`;
  return firstLine < 0 ? ` w:hanging="${-firstLine}"` : '';
}

/** A Word 2010 text box's graphic (a shape with text: no border, no fill, no inner margins). */
function textBoxGraphic(cx: number, cy: number, content: string): string {
  return (
    `<a:graphic xmlns:a="${A_NS}"><a:graphicData uri="${WPS_NS}"><wps:wsp xmlns:wps="${WPS_NS}"><wps:cNvSpPr txBox="1"/>` +
    `<wps:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="${cx}" cy="${cy}"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom><a:noFill/><a:ln><a:noFill/></a:ln></wps:spPr>` +
    `<wps:txbx><w:txbxContent>${content}</w:txbxContent></wps:txbx>` +
    `<wps:bodyPr rot="0" vert="horz" wrap="square" lIns="0" tIns="0" rIns="0" bIns="0" anchor="t" anchorCtr="0"><a:noAutofit/></wps:bodyPr></wps:wsp></a:graphicData></a:graphic>`
  );
}

/** A floating drawing run, from the text area's corner or from its paragraph (TX's kinds 1 and 2), text above and below it. */
function floating(
  place: { x: number; y: number; width: number; height: number; placement?: 'margin' | 'paragraph' },
  id: number,
  name: string,
  graphic: string,
): string {
  const [horizontal, vertical] = place.placement === 'margin' ? ['margin', 'margin'] : ['column', 'paragraph'];
  return (
    `<w:r><w:drawing><wp:anchor distT="0" distB="0" distL="0" distR="0" simplePos="0" relativeHeight="${id}" behindDoc="0" locked="0" layoutInCell="1" allowOverlap="1">` +
    `<wp:simplePos x="0" y="0"/><wp:positionH relativeFrom="${horizontal}"><wp:posOffset>${place.x * 635}</wp:posOffset></wp:positionH>` +
    `<wp:positionV relativeFrom="${vertical}"><wp:posOffset>${place.y * 635}</wp:posOffset></wp:positionV>` +
    `<wp:extent cx="${place.width * 635}" cy="${place.height * 635}"/><wp:effectExtent l="0" t="0" r="0" b="0"/><wp:wrapTopAndBottom/><wp:docPr id="${id}" name="${name}"/>` +
    `${graphic}</wp:anchor></w:drawing></w:r>`
  );
}

/** The story's text frames (not its signature boxes). */
const textFrames = (story: TxStory): TxTextFrame[] => (story.frames ?? []).filter((frame): frame is TxTextFrame => 'story' in frame);

/** Whether any story of the document (its frames and text boxes too) has an SVG picture: writing it for Word needs the rasteriser. */
export function hasSvgPictures(doc: TxDocument): boolean {
  return [doc, doc.header, doc.footer, doc.firstHeader, doc.firstFooter]
    .flatMap((story) => (story ? picturesOf(story) : []))
    .some((picture) => picture.type === 'svg' && picture.linked === undefined);
}

export function txToDocx(doc: TxDocument, rasterise?: SvgRasteriser): Buffer {
  const grid = regularTabs(doc);
  const tabs = grid === undefined;
  const parts: NewPart[] = [];
  const references: string[] = [];
  const drawings = { next: 1 };
  const textWidth = doc.page.width - doc.page.margins[0] - doc.page.margins[2];
  // Headers and footers first (bookmark ids 1000, 2000, ... on), then the body's references to them.
  for (const [kind, type, story, firstId] of [
    ['header', 'default', doc.header, 1000],
    ['header', 'first', doc.firstHeader, 2000],
    ['footer', 'default', doc.footer, 3000],
    ['footer', 'first', doc.firstFooter, 4000],
  ] as const) {
    if (!story) continue;
    const id = `rId${10 + references.length}`;
    const writer = new Writer(story, { bookmarkId: firstId, tabs, drawings, textWidth, ...(rasterise ? { rasterise } : {}) });
    parts.push({ kind, id, content: writer.content(), links: linksOf(writer), images: writer.images });
    references.push(`<w:${kind}Reference w:type="${type}" r:id="${id}"/>`);
  }
  const { page } = doc;
  const [left, top, right, bottom] = page.margins;
  // A first page of its own (CT_SectPr: titlePg after the page's size and margins).
  const titlePg = doc.firstHeader || doc.firstFooter ? '<w:titlePg/>' : '';
  const sectPr =
    `<w:sectPr>${references.join('')}<w:pgSz w:w="${page.width}" w:h="${page.height}"/>` +
    `<w:pgMar w:top="${top}" w:right="${right}" w:bottom="${bottom}" w:left="${left}" w:header="${page.headerDistance}" w:footer="${page.footerDistance}" w:gutter="0"/>${titlePg}</w:sectPr>`;
  const body = new Writer(doc, { tabs, drawings, textWidth, ...(rasterise ? { rasterise } : {}) });
  return newDocx(
    body.content() + sectPr,
    [
      { kind: 'styles', id: 'rId1', content: STYLES },
      { kind: 'settings', id: 'rId2', content: settings(grid ?? TX_DEFAULT_TAB, doc.protection) },
      ...parts,
    ],
    linksOf(body),
    body.images,
  );
}
