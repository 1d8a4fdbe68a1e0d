/**
 * Reads TX Text Control's internal format (.tx) into a document model: a deterministic walk of its
 * tables by their counts and lengths (docs/tx-format.md), with every assumption checked: runs and
 * paragraphs must tile the text, parts must end where their lengths say, only known feature flags.
 * What the walk does not understand is refused by name, never guessed.
 */
import { Cursor, TxError, damaged } from './cursor.js';

export interface TxCharFormat {
  face: string;
  /** Size in half points (Word's w:sz). */
  halfPoints: number;
  bold: boolean;
  italic: boolean;
  underline: boolean;
  strike: boolean;
  /** The record as TX wrote it: what the model does not say is written back from it (formats/tx/write.ts). */
  kept?: Uint8Array;
  /** The record of the block's tail with the Unicode face name. */
  keptFace?: Uint8Array;
}

/** COLORREF 0x00BBGGRR as RRGGBB, or null for "automatic" / "none". */
export type Colour = string | null;

export interface TxRun {
  /** 0-based into the text; `end` exclusive. */
  start: number;
  end: number;
  format: number;
  colour: Colour;
  background: Colour;
  /** 0: not part of a field. */
  field: number;
  /** The record as TX wrote it: what the model does not say is written back from it (formats/tx/write.ts). */
  kept?: Uint8Array;
  /** The run's extended record in the block's tail. */
  keptExtra?: Uint8Array;
}

export interface TxParagraph {
  start: number;
  /** Exclusive; a paragraph's text ends with its mark (U+000A) unless it is the document's last. */
  end: number;
  format: number;
  /** The paragraph's extended record in the block's tail. */
  keptExtra?: Uint8Array;
}

export interface TxParaFormat {
  alignment: 'left' | 'right' | 'center' | 'both';
  /** Kept on the page with the next paragraph (TX sets it on table header cells). */
  keepNext: boolean;
  /** The paragraph's lines kept together on one page. */
  keepLines?: boolean;
  /** Left and right indents and the first line's from the left one (negative: hanging), in twips. */
  indent?: { left: number; right: number; firstLine: number };
  spaceBefore: number;
  spaceAfter: number;
  /** Line spacing in percent (100 single). */
  lineSpacing: number;
  /**
   * Line spacing of at least this many twips, in place of the percentage: TX sets the top bit of
   * the value (TXSamples' Booking Request.tx: 20 and 200 on 18 and 10 pt text; read as RTF's
   * positive `\sl`, at least, in twips, which leaves both single-spaced).
   */
  atLeast?: number;
  /** Left-aligned tab stops, in twips from the paragraph's left edge, ascending. */
  tabs: number[];
  /** Right-aligned tab stops: 0, the right margin, is the only one seen (kind 5). */
  rightTabs?: number[];
  /** Decimal tab stops, in twips (kind 4). */
  decimalTabs?: number[];
  /** The record as TX wrote it: what the model does not say is written back from it (formats/tx/write.ts). */
  kept?: Uint8Array;
  /** The format's extended record in the block's tail. */
  keptExtra?: Uint8Array;
}

export interface TxCell {
  start: number;
  end: number;
  left: number;
  width: number;
  format: number;
  /**
   * Merged cells (the record's flags at byte 14, TextControl's Financial and MailMerge.WebAPI
   * samples): `right`, the cell is merged with the one after it (it spans it); `left`, it is merged
   * into the one before it (its own text empty); `up`, into the one above it (empty).
   */
  merged?: { left?: true; right?: true; up?: true };
  /** The record as TX wrote it: what the model does not say is written back from it (formats/tx/write.ts). */
  kept?: Uint8Array;
}

export interface TxTable {
  rows: number;
  columns: number;
  cells: TxCell[];
  /** The record as TX wrote it: what the model does not say is written back from it (formats/tx/write.ts). */
  kept?: Uint8Array;
}

export interface TxCellFormat {
  /** Border widths in twips: left, top, right, bottom. */
  borders: [number, number, number, number];
  /** Distances from the border to the text in twips: left, top, right, bottom. */
  padding: [number, number, number, number];
  shading: Colour;
  borderColours: [Colour, Colour, Colour, Colour];
  /** The row repeats at the top of each page (a table header). */
  headerRow: boolean;
  /** The record as TX wrote it: what the model does not say is written back from it (formats/tx/write.ts). */
  kept?: Uint8Array;
  /** The border record of the block's tail. */
  keptBorders?: Uint8Array;
}

export interface TxField {
  name?: string;
  /** The Word instruction, as TX keeps it (tokens); empty for a hyperlink. */
  instruction: string[];
  /** A hyperlink's address (http, https, mailto or ftp, or a path relative to the document). */
  link?: string;
  /** A link to a place in the document: the name of its target (TxTarget). */
  target?: string;
  /** A form field (TX Text Control Words): its kind, and a drop-down's items. */
  form?: TxFormField;
  /** The page's number or the document's page count, drawn by TX where its run (of no text) is. */
  page?: 'number' | 'count';
  /**
   * A document target's name (type 4, a run of no text): `BlockStart_name` and `BlockEnd_name` mark
   * a merge block, as older TX versions mark one; any other name marks a place (a bookmark).
   */
  block?: string;
  /** The field's property records as TX wrote them, in their order. */
  kept?: Uint8Array[];
}

export interface TxMark {
  name: string;
  start: number;
  end: number;
  /** The record as TX wrote it: what the model does not say is written back from it (formats/tx/write.ts). */
  kept?: Uint8Array;
}

export interface TxPage {
  width: number;
  height: number;
  /** left, top, right, bottom in twips. */
  margins: [number, number, number, number];
  /** From the page's edge to the header's top and to the footer's bottom, in twips. */
  headerDistance: number;
  footerDistance: number;
}

/** What the body's frame table places: at a size and offset (twips), anchored at a place in the text. */
interface TxPlaced {
  /** The anchor's position in the story's text (0-based; the text's length: its end). */
  anchor: number;
  x: number;
  y: number;
  width: number;
  height: number;
  /** The frame's record (before what it holds) as TX wrote it. */
  kept?: Uint8Array;
}

/**
 * A text frame anchored in the body: its own story, placed from the paragraph that holds its
 * anchor. How TX measures the offset is not decoded beyond the samples' (0, 0).
 */
export interface TxTextFrame extends TxPlaced {
  story: TxStory;
  /** Measured from the text area's corner or from the anchor's paragraph (kinds 1 and 2); absent: kind 3, as studied. */
  placement?: 'margin' | 'paragraph';
  /** The embedded document's settings, style sheet and empty section list, as TX wrote them. */
  keptDocument?: Uint8Array;
}

/**
 * A signature box (object `0x8018`: TX Text Control's e-signing field, the InsuranceClaim, SignFlow,
 * SignatureData and Angular Forms samples): the picture it shows until signed (an EMF box in every
 * sample), floating at its offset from the text area's top left corner (`margin`, TX's kind 1) or
 * from its anchor's paragraph (`paragraph`, kind 2), as TX Text Control's own PDF of SignFlow places it.
 */
export interface TxSignatureBox extends TxPlaced {
  signature: TxPicture;
  placement: 'margin' | 'paragraph';
}

export type TxFrame = TxTextFrame | TxSignatureBox;

/** Every picture a story shows: its own, its text boxes' and text frames' (theirs too), its signature boxes'. */
export function picturesOf(story: TxStory): TxPicture[] {
  return [
    ...(story.pictures ?? []).flatMap((picture) => [picture, ...(picture.box ? picturesOf(picture.box.story) : [])]),
    ...(story.frames ?? []).flatMap((frame) => ('signature' in frame ? [frame.signature] : picturesOf(frame.story))),
  ];
}

/** A tracked change: text inserted while changes were tracked (the only kind the samples show). */
export interface TxChange {
  start: number;
  end: number;
  kind: 'insertion';
  time: Date;
  /** The record as TX wrote it. */
  kept?: Uint8Array;
}

/** A form field's kind and settings, as far as they are read; its name is the field's `name`. */
export interface TxFormField {
  kind: 'text' | 'date' | 'dropdown' | 'checkbox';
  /** A drop-down's items, in order. */
  items: string[];
  /** A check box's characters, checked and not (☒ and ☐ in the samples). */
  checked?: string;
  unchecked?: string;
}

/**
 * A picture in the text: one U+0001 character, the pictures in the order of theirs. Its own size
 * in twips and the scaling TX shows it at; the image as TX embeds it.
 */
export interface TxPicture {
  /** TX's name for the image's type: png, jpg, gif, bmp, emf or wmf; `box` for a text box in line (no image). */
  type: string;
  data: Uint8Array;
  width: number;
  height: number;
  /** Percent, horizontal and vertical. */
  scaleX: number;
  scaleY: number;
  /** The record as TX wrote it (40 bytes, the type's tag and two bytes). */
  kept?: Uint8Array;
  /** The picture's record at the block's end (42 bytes: its size again, the rest zero in the sample). */
  keptExtra?: Uint8Array;
  /** A text box in line with the text (the signature boxes of TextControl's e-signing samples): its text, a story of its own. */
  box?: { story: TxStory; keptDocument?: Uint8Array };
  /**
   * A picture linked to a file, not embedded: the path TX keeps (its first two bytes in the record,
   * the rest first in `data`, then more not decoded). docsmith never reads a file a document names:
   * it shows as a blank of its size.
   */
  linked?: string;
  /**
   * A barcode (TX Text Control's, object `0x8010`): the picture is the one TX last drew of it;
   * `kept` its head and the bytes before its XML, `xml` TX's description (type, text, colours).
   */
  barcode?: { kept?: Uint8Array; xml: string };
  /** A signature box in line with the text (object `0x8018`): the picture it shows until signed. */
  signatureBox?: true;
}

/** TX Text Control Words' conditional instructions of a form field, kept as TX wrote them (no DOCX equivalent). */
export interface TxConditions {
  field: number;
  /** The record: field id, kind, length and the instructions' text (their content: not decoded, not dropped). */
  record: Uint8Array;
}

/** A part of a protected document that every user may edit (a Word permission range for everyone). */
export interface TxRegion {
  /** 0-based into the story's text; `end` exclusive. */
  start: number;
  end: number;
  /** The region's id, as TX numbers them. */
  id: number;
  /** The record as TX wrote it. */
  kept?: Uint8Array;
}

/**
 * A document's protection, as TX keeps it in its settings (`__TX_PERM__`): Word's own terms (the
 * editing allowed, enforcement, the password's salted hash), so a DOCX asks Word for the same password.
 */
export interface TxProtection {
  edit: string;
  enforced: boolean;
  algorithm?: string;
  hash?: string;
  salt?: string;
  spinCount?: number;
}

/** A place links lead to (TX Text Control Words' document targets; a bookmark in DOCX). */
export interface TxTarget {
  name: string;
  /** 0-based into the story's text. */
  position: number;
  /** The record as TX wrote it. */
  kept?: Uint8Array;
}

export interface TxStory {
  text: string;
  runs: TxRun[];
  charFormats: TxCharFormat[];
  paragraphs: TxParagraph[];
  paraFormats: TxParaFormat[];
  /** Tables of the body and tables nested in their cells, by their ranges. */
  tables: TxTable[];
  cellFormats: TxCellFormat[];
  fields: Map<number, TxField>;
  marks: TxMark[];
  /** Text frames anchored in the story (the body's; a footer's text box becomes the footer's text). */
  frames?: TxFrame[];
  /** Tracked changes, in text order. */
  changes?: TxChange[];
  /** Link targets (files saved by TX Text Control Words). */
  targets?: TxTarget[];
  /** Editable regions of a protected document. */
  regions?: TxRegion[];
  /** Pictures, in the order of their U+0001 characters in the text. */
  pictures?: TxPicture[];
  /** TX Text Control Words' conditional instructions of form fields. */
  conditions?: TxConditions[];
  /** What the story's formatting block holds that the model does not say, as TX wrote it. */
  kept?: TxStoryKept;
}

/** The parts of a formatting block outside its records, kept to be written back as they were. */
export interface TxStoryKept {
  /** The feature flags: the writer sets the bits the model decides (marks, changes, frames). */
  flags: number;
  /** The 16 bytes before the Unicode face names. */
  faceHeader: Uint8Array;
  codePage: number;
  /** Marks refer to names by their place in this list (font symbol sets come first). */
  names: string[];
  /** The body's text-section record (24 bytes). */
  sectionRecord?: Uint8Array;
  /** A header's or footer's frame table (its text box), whole. */
  frameTable?: Uint8Array;
  /** TX Text Control Words' closing table: its first `u16` and the number of zero bytes that end it. */
  wordsTable?: { head: number; zeros: number };
  /** Tables with spreadsheet formulas (of the story's `tables`), and the formulas' records as TX wrote them, not decoded. */
  sheet?: { tables: TxTable[]; formulas: Uint8Array };
}

export interface TxDocument extends TxStory {
  page: TxPage;
  header?: TxStory;
  footer?: TxStory;
  /** The first page's own header and footer (a different first page, as Word's w:titlePg). */
  firstHeader?: TxStory;
  firstFooter?: TxStory;
  /** Read from the settings, which are written back as kept. */
  protection?: TxProtection;
  /** The file's parts outside its stories, as TX wrote them. */
  keptFile?: TxFileKept;
}

export interface TxFileKept {
  /** The settings and style sheet. */
  settings: Uint8Array;
  /** The section's fixed part (46 bytes): the writer puts the page and the header and footer flags in. */
  section: Uint8Array;
  /** What ends the section (`u32 1` and 68 bytes). */
  sectionEnd: Uint8Array;
}

const MAGIC = [0x08, 0x07, 0x01, 0x00, 0x0e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00];
/** The 14 bytes every TX file starts with. */
export const TX_MAGIC = Uint8Array.from(MAGIC);

/** Feature flags of a format block: the bits every known file sets, and the optional ones this reader walks. */
const BASE_FLAGS = 0x061f;
const NESTED_TABLES = 0x0020;
/** The name list (fonts' symbol sets, block names); an older layout without names leaves it out (TXSamples' Instructions.tx). */
const NAME_LIST = 0x0100;
/** The body's text-section record; headers and footers have none. */
const SECTION_RECORD = 0x0080;
const MARKS = 0x1000;
/** A frame table: text frames and boxes anchored in this story (the body's frames, a footer's box). */
const FRAMES = 0x0040;
/** Flags seen in public samples whose tables this reader does not walk yet, by what set them. */
/**
 * Tables with spreadsheet formulas (TXSamples' Cashflow.tx): the tables sit at the block's end, the
 * formulas after them in records this reader does not decode (their text is in the name list).
 */
const SHEET = 0x0800;
/** A table of editable regions (a protected document's parts every user may edit). */
const REGIONS = 0x2000;
/** A table of tracked changes at the block's end. */
const TRACKED = 0x4000;
/**
 * Set by newer TX versions (the .NET SDK's tracked.tx, TX Text Control Words' files): the
 * extended run records carry more, the layout is the same. A block that then holds tables past
 * the known ones (Words' link targets) is refused by name.
 */
const NEWER = 0x8000;
const KNOWN_FLAGS = BASE_FLAGS | NAME_LIST | NESTED_TABLES | SECTION_RECORD | MARKS | FRAMES | TRACKED | NEWER | REGIONS | SHEET;
/** The feature flags the writer sets from the model (formats/tx/write.ts). */
export const TX_FLAGS = {
  base: 0x071f & ~NAME_LIST,
  names: NAME_LIST,
  nestedTables: NESTED_TABLES,
  sectionRecord: SECTION_RECORD,
  marks: MARKS,
  frames: FRAMES,
  tracked: TRACKED,
  newer: NEWER,
  regions: REGIONS,
  sheet: SHEET,
} as const;

/** Field kinds of a run: Word fields (MERGEFIELD; DATE and the like); the others are named when refused. */
const MERGE_FIELD = 0x079a;
const WORD_FIELD = 0x071a;
/**
 * A run's field kind is a type (high byte) and flags (low byte): type 7 is a Word field, whatever
 * its flags (0x9a and 0x1a in the SDK files, 0x80 and 0x00 in TextControl's Parallel sample).
 */
const isWordField = (kind: number): boolean => kind >> 8 === 0x07;
/**
 * Type 4: a document target, its name as property 4, a run of no text: a merge block's start or end
 * (TextControl's MailMerge.WebAPI sample: `BlockStart_item`, `BlockEnd_item`), as older TX versions
 * mark blocks, or a named place (the Blockchain sample's NDA: `_DV_M52`, flags 0).
 */
const isBlockField = (kind: number): boolean => kind >> 8 === 0x04;
const BLOCK_FIELD = 0x0401;
/** A target's name: printable, of a length a name has. */
const TARGET_NAME = /^\P{Cc}{1,255}$/u;
const HYPERLINK = 0x0110;
/** Type 1: a hyperlink, its address as property 1; flags 0x10 in TXSamples, 0 in TextControl's NDA and quick-start samples (one of no text). */
const isHyperlink = (kind: number): boolean => kind === HYPERLINK || kind === 0x0100;
/** A link to a place in the document (its target's name is property 2). */
const PLACE_LINK = 0x0210;
const LINK_SCHEMES = /^(?:https?|mailto|ftp):/i;
/** A path relative to the document (TX Text Control Words links documents so): no scheme, not rooted. */
const RELATIVE_LINK = /^(?![\\/])[^:]+$/;
/** A hyperlink: to an address or to a place in the document. */
export const isLink = (field: TxField): boolean => field.link !== undefined || field.target !== undefined;
/** What a hyperlink may lead to: followed by a reader's click, never fetched here. */
export const isLinkAddress = (link: string): boolean => LINK_SCHEMES.test(link) || RELATIVE_LINK.test(link);
/** Form fields (TX Text Control Words), each one U+0002 character of the text (a check box: the character it shows). */
const FORM_KINDS: Record<number, TxFormField['kind']> = { 0x1090: 'text', 0x1190: 'date', 0x0f92: 'dropdown', 0x0e90: 'checkbox' };
const FORM_FIELD_KINDS = Object.fromEntries(Object.entries(FORM_KINDS).map(([kind, name]) => [name, Number(kind)])) as Record<
  TxFormField['kind'],
  number
>;
const FORM_FIELD_CHAR = '\u0002';
/** Page number (type 3) and page count (type 9) fields: runs of no text, one empty property of the type's number. */
const PAGE_KINDS: Record<number, 'number' | 'count'> = { 0x0300: 'number', 0x0900: 'count' };
export const PAGE_FIELD_KINDS = { number: 0x0300, count: 0x0900 } as const;

/** Property kinds of form fields: a drop-down's items, a date field's settings (five empty strings in the sample). */
const ITEMS = 15;
const DATE_SETTINGS = 17;
/** A check box's property: no payload, the characters shown checked and unchecked at bytes 6 and 8 (U+2612, U+2610). */
const CHECK_BOX = 14;

const AUTO = 0x40000000;
const NONE = 0x50000000;

/** A COLORREF as the model's colour (throws on a value TX does not write). */
export function decodeColour(value: number): Colour {
  if (value === AUTO || value === NONE) return null;
  if (value > 0xffffff) throw new TxError(`it uses a colour value this reader does not know (0x${value.toString(16)}).`);
  const hex = (n: number) => n.toString(16).padStart(2, '0').toUpperCase();
  return hex(value & 0xff) + hex((value >> 8) & 0xff) + hex((value >> 16) & 0xff);
}

export function isTx(bytes: Uint8Array): boolean {
  return MAGIC.every((b, i) => bytes[i] === b);
}

/** The whole file: the main text stream, the settings and style sheet, the section list. */
export function readTx(bytes: Uint8Array): TxDocument {
  if (!isTx(bytes)) {
    // Bytes 8-13 a `u16` count and the `u32` place of objects kept after the document (the Portal
    // sample's vendor form: shapes whose DrawingML follows the sections).
    const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 14));
    if (
      head.length === 14 &&
      MAGIC.slice(0, 8).every((b, i) => head[i] === b) &&
      [1, 2].includes(head.readUInt16LE(8)) &&
      head.readUInt32LE(10) < bytes.length
    )
      throw new TxError("shapes and drawings (TX Text Control's drawing layer) in TX documents are not supported yet.");
    throw damaged('its header is not the one TX Text Control writes');
  }
  const file = new Cursor(bytes, MAGIC.length);
  const { story: body } = readStream(file, 'body');
  if (file.u32('the settings header') !== 0) throw damaged('the settings header');
  const settingsLength = file.u32('the settings length');
  const settings = file.peek(settingsLength, 'the settings and style sheet');
  file.skip(settingsLength, 'the settings and style sheet');
  const { kept, ...section } = readSections(file);
  file.expectEnd('the document');
  const protection = readProtection(settings);
  return { ...body, ...section, ...(protection ? { protection } : {}), keptFile: { settings, ...kept } };
}

/** Which stream is read: the body, a header, a footer, or the document a frame embeds. */
type Story = 'body' | 'header' | 'footer' | 'frame document';

/** A story as read, with the number of frames anchored in it. */
interface Stream {
  story: TxStory;
  frames: number;
  /** Written by a newer TX (flag 0x8000). */
  newer: boolean;
}

/** A text stream: its text, then its formatting block. */
function readStream(c: Cursor, story: Story): Stream {
  const length = c.u16('the text length');
  if (c.u16('the text header') !== 2) throw damaged('the text header');
  const text = c.utf16(length, 'the text');
  checkText(text);
  if (c.u16('the formatting header') !== 0) throw damaged('the formatting header');
  const block = c.part(c.u32('the formatting length'), 'the formatting block');
  const document = readFormatting(block, text, story);
  block.expectEnd('the formatting block');
  return document;
}

function checkText(text: string): void {
  for (const ch of text) {
    const code = ch.charCodeAt(0);
    if (code >= 0x20 || code === 0x09 || code === 0x0a || code === 0x0b || code === 0x0c) continue;
    // A picture (U+0001) and a form field (U+0002) are checked against their records.
    if (code === 0x01 || code === 0x02) continue;
    throw new TxError(`its text holds a control character this reader does not know (U+${code.toString(16).padStart(4, '0')}).`);
  }
}

function readFormatting(c: Cursor, text: string, story: Story): Stream {
  const [runCount, fontCount, paragraphCount, paraFormatCount, pictureCount, tableCount, cellFormatCount, propertyCount, flags] =
    Array.from({ length: 9 }, () => c.u16('the formatting counts')) as [
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
    ];
  if (pictureCount !== [...text].filter((ch) => ch === '\u0001').length) throw damaged('the pictures');
  if (flags & FRAMES && story !== 'body' && story !== 'header' && story !== 'footer')
    throw new TxError('text frames inside text frames or text boxes in TX documents are not supported yet.');
  if ((flags & BASE_FLAGS) !== BASE_FLAGS || flags & ~KNOWN_FLAGS || Boolean(flags & SECTION_RECORD) !== (story === 'body'))
    throw new TxError(`it uses TX features this reader does not know (feature flags 0x${flags.toString(16)} in the ${story}).`);

  const { runs, kinds } = readRuns(c, runCount, fontCount, text.length);
  const charFormats = Array.from({ length: fontCount }, () => readCharFormat(c));
  const paragraphs = readParagraphs(c, paragraphCount, paraFormatCount, text);
  const paraFormats = Array.from({ length: paraFormatCount }, () => readParaFormat(c));
  const pictures = Array.from({ length: pictureCount }, () => readPicture(c));
  const tables = Array.from({ length: tableCount }, () => readTable(c, cellFormatCount, text.length));
  const cellFormats = Array.from({ length: cellFormatCount }, () => readCellFormat(c));
  const fields = readFieldProperties(c, propertyCount, kinds);
  // A form field is its one U+0002 character (a check box: the character it shows), and every
  // U+0002 is a form field's.
  for (const run of runs) {
    const form = run.field !== 0 ? fields.get(run.field)!.form : undefined;
    const shown = text.slice(run.start, run.end);
    const marks = [...shown].filter((ch) => ch === FORM_FIELD_CHAR).length;
    const box = form?.kind === 'checkbox' && shown.length === 1 && (shown === form.checked || shown === form.unchecked);
    if (form ? !box && (form.kind === 'checkbox' || marks !== shown.length) : marks > 0) throw damaged('a form field');
  }
  // A hyperlink is written inside one paragraph.
  for (const run of runs)
    if (run.field !== 0 && isLink(fields.get(run.field)!) && text.slice(run.start, run.end).includes('\n'))
      throw new TxError('hyperlinks over several paragraphs in TX documents are not supported yet.');

  // The tail: Unicode face names, code page, extended paragraph, run and paragraph records.
  const faceHeader = c.peek(16, 'the face name header');
  c.skip(16, 'the face name header');
  for (const format of charFormats) {
    format.keptFace = c.peek(80, 'a face name');
    const face = c.utf16(32, 'a face name').split('\0')[0]!;
    if (face) format.face = face;
    c.skip(16, 'a face name');
  }
  const codePage = c.u32('the code page');
  for (const format of paraFormats) {
    format.keptExtra = c.peek(32, 'the extended paragraph formats');
    c.skip(32, 'the extended paragraph formats');
  }
  for (const record of [...runs, ...paragraphs]) {
    record.keptExtra = c.peek(18, 'the extended run and paragraph records');
    c.skip(18, 'the extended run and paragraph records');
  }
  if (flags & NESTED_TABLES) {
    const nested = c.u16('the nested table count');
    for (let i = 0; i < nested; i++) tables.push(readTable(c, cellFormatCount, text.length));
  }
  // Frames come before the body's section record (a footer has none).
  const frameTableStart = c.at;
  const frames = flags & FRAMES ? (story === 'body' ? readBodyFrames(c, text) : readFrames(c, text)) : 0;
  const frameTable = typeof frames === 'number' && frames > 0 ? c.bytesFrom(frameTableStart) : undefined;
  const sectionRecord = flags & SECTION_RECORD ? c.peek(24, 'the text sections') : undefined;
  if (flags & SECTION_RECORD) {
    // One text section covering the whole text (with its final paragraph mark).
    const sections = [c.u16('the text sections'), c.u16('the text sections'), c.u16('the text sections')];
    const sectionEnd = c.u32('the text sections');
    if (sections.some((n) => n !== 1) || sectionEnd !== text.length + 1) {
      // Several sections say so alike in all three counts and end their first inside the text; other values are damage.
      const several = sections.every((n) => n === sections[0]) && sections[0]! > 1 && sections[0]! <= 1000 && sectionEnd <= text.length;
      throw several ? new TxError('documents with several sections are not supported yet.') : damaged('the text sections');
    }
    c.skip(14, 'the text sections');
  }
  const names = flags & NAME_LIST ? Array.from({ length: c.u16('the name count') }, () => c.utf16z('a name')) : [];
  for (const format of cellFormats) {
    format.keptBorders = c.peek(52, 'a cell border record');
    c.u32('a cell border record');
    format.borderColours = [0, 1, 2, 3].map(() => decodeColour(c.u32('a cell border colour'))) as TxCellFormat['borderColours'];
    c.skip(32, 'a cell border record');
  }
  // Each picture's second record (42 bytes), in the order of the first ones, after the cell borders
  // (before the spreadsheet tables in TextControl's Financial sample).
  for (const picture of pictures) {
    picture.keptExtra = c.peek(PICTURE_EXTRA, 'a picture');
    c.skip(PICTURE_EXTRA, 'a picture');
  }
  // Tables with spreadsheet formulas come before the marks; their formulas' records end the block.
  const sheetTables = flags & SHEET ? readSheetTables(c, tables, cellFormats.length, text.length) : undefined;
  const marks: TxMark[] = [];
  if (flags & MARKS) {
    const count = c.u16('the mark count');
    for (let i = 0; i < count; i++) {
      const kept = c.peek(37, 'a mark');
      const start = c.u32('a mark');
      const end = c.u32('a mark');
      // The name's place in the list is at byte 19, counted from 1 (byte 8 is 1 in every sample).
      c.skip(11, 'a mark');
      const name = names[c.u16('a mark') - 1];
      c.skip(16, 'a mark');
      if (name === undefined || start > end || end > text.length + 1) throw damaged('a marked range');
      marks.push({ name, start, end, kept });
    }
  }
  const placed = typeof frames === 'number' ? {} : { frames };
  const changes = flags & TRACKED ? { changes: readChanges(c, text) } : {};
  const regions = flags & REGIONS ? { regions: readRegions(c, text) } : {};
  const sheet = sheetTables ? { tables: sheetTables, formulas: readFormulas(c) } : undefined;
  // TX Text Control Words ends the block with its own table; an older block ends here.
  const words = flags & NEWER && c.left > 0 ? readWordsTable(c, text, names, fields) : undefined;
  const kept: TxStoryKept = {
    flags,
    faceHeader,
    codePage,
    names,
    ...(sectionRecord ? { sectionRecord } : {}),
    ...(frameTable ? { frameTable } : {}),
    ...(words ? { wordsTable: words.table } : {}),
    ...(sheet ? { sheet } : {}),
  };
  const targets = words ? { targets: words.targets, ...(words.conditions.length ? { conditions: words.conditions } : {}) } : {};
  const placedPictures = pictures.length ? { pictures } : {};
  return {
    story: {
      ...{ text, runs, charFormats, paragraphs, paraFormats, tables, cellFormats, fields, marks },
      ...{ ...placed, ...changes, ...regions, ...targets, ...placedPictures, kept },
    },
    frames: typeof frames === 'number' ? frames : frames.length,
    newer: (flags & NEWER) !== 0,
  };
}

/**
 * The frame table of a header or footer: a count, then per frame a 60-byte record ending with the
 * length of an embedded, empty TX document (the box's own settings), then that document. The
 * frame's text is a stream of its own after the story (section flag 0x08). Only the one shape the
 * public samples show is taken: one text box, anchored in a story with no text of its own, with
 * the record's settings as studied. Its position and size are not decoded: its text is written in
 * the story's place. Anything else is refused.
 */
const BOX_RECORD = [0, 0, 0x8007, 1, 1];
const BOX_SETTINGS = [100, 100, 0, 180, 0, 180, 0, 0, 0, 2, 1, 0, 0xff, 0, 0];
function readFrames(c: Cursor, text: string): number {
  const count = c.u16('the frame count');
  if (count !== 1 || text !== '')
    throw new TxError('text frames and text boxes in TX documents are not supported yet, except as the only content of a footer.');
  const record = BOX_RECORD.map(() => c.u16('a frame'));
  c.u32('a frame position');
  c.u32('a frame position');
  c.u32('a frame size');
  c.u32('a frame size');
  const settings = BOX_SETTINGS.map(() => c.u16('a frame'));
  if (record.some((v, i) => v !== BOX_RECORD[i]) || settings.some((v, i) => v !== BOX_SETTINGS[i]))
    throw new TxError('text frames and text boxes of this kind in TX documents are not supported yet.');
  if (readEmbedded(c, c.u32('a frame document length'), 'a frame document').story.text !== '') throw damaged('a frame document');
  return count;
}

/**
 * A frame's or a text box's own TX document, `length` bytes: its magic, its text's stream (no
 * section record), its settings and style sheet (kept as they are), and a section count of 0.
 */
function readEmbedded(c: Cursor, length: number, what: string): Stream & { keptDocument: Uint8Array } {
  const embedded = c.part(length, what);
  if (!isTx(embedded.rest())) throw damaged(what);
  embedded.skip(MAGIC.length, what);
  const stream = readStream(embedded, 'frame document');
  const keptDocument = embedded.rest().slice();
  if (embedded.u32(what) !== 0) throw damaged(what);
  embedded.skip(embedded.u32(what), what);
  if (embedded.u16(what) !== 0) throw damaged(what);
  embedded.expectEnd(what);
  return { ...stream, keptDocument };
}

/**
 * The frame table of the body: per frame a 60-byte record (kind 3: a text frame; the anchor's
 * 1-based position; offset and size in twips; settings), then the frame's own TX document, whose
 * text is the frame's. Only the settings seen in the public samples are taken; anything else is
 * refused by name. A frame holding tables or frames of its own is refused too (a Word text frame
 * holds paragraphs).
 */
const FRAME_SETTINGS = [100, 100, 2, 0, 0, 0, 0, 0, 0, 0, 1001, 0, 0, 0, 0];
/** Floating objects' kinds (the frame record's fourth `u16`) by where they are measured from; write.ts writes them back. */
export const PLACEMENTS: Record<number, 'margin' | 'paragraph'> = { 1: 'margin', 2: 'paragraph' };
/**
 * Where a frame is measured from, by the record's fourth `u16`: 3 the studied frames' (the offset
 * from the margin across, from the anchor's paragraph down); 1 from the text area's corner and 2
 * from the anchor's paragraph, as signature boxes of those kinds (TX's own PDF of SignFlow).
 */
const FRAME_PLACEMENTS: Record<number, TxTextFrame['placement'] | null> = { 3: null, ...PLACEMENTS };
/** The settings read: kind 3 as studied; kinds 1 and 2 with the third and tenth settings seen (0 or 2; 0, 2 or 4: the CustomSigning NDA's box). */
function frameSettingsRead(placement: TxTextFrame['placement'] | null, settings: number[]): boolean {
  if (placement === null) return settings.every((v, k) => v === FRAME_SETTINGS[k]);
  return settings.every((v, k) =>
    k === 2
      ? v === 0 || v === 2
      : k === 9
        ? [0, 2, 4].includes(v)
        : k === 10
          ? v > 0
          : v === FRAME_SETTINGS[k] || (k !== 0 && k !== 1 && v === 0),
  );
}
function readBodyFrames(c: Cursor, text: string): TxFrame[] {
  const count = c.u16('the frame count');
  if (count === 0 || count > 1000) throw damaged('the frame table');
  const frames: TxFrame[] = [];
  for (let i = 0; i < count; i++) {
    const kept = c.peek(56, 'a frame');
    const record = [0, 1, 2, 3].map(() => c.u16('a frame'));
    const anchor = c.u16('a frame');
    const [x, y, width, height] = [0, 1, 2, 3].map(() => c.u32('a frame position')) as [number, number, number, number];
    const settings = FRAME_SETTINGS.map(() => c.u16('a frame'));
    // What every frame record starts with: anything else is not a frame table.
    if (record[0] !== 0 || record[1] !== 0 || (record[2]! & 0xff00) !== 0x8000) throw damaged('a text frame');
    if (record[2] === SIGNATURE_OBJECT) {
      frames.push(readSignatureBox(c, text, { kept, kind: record[3]!, anchor, place: [x, y, width, height], settings }));
      continue;
    }
    const placement = FRAME_PLACEMENTS[record[3]!];
    if (record[2] !== 0x8007 || placement === undefined || !frameSettingsRead(placement, settings))
      throw new TxError('text frames and text boxes of this kind in TX documents are not supported yet.');
    if (anchor < 1 || anchor > text.length + 1 || width < 1 || height < 1 || width > 31680 || height > 31680 || x > 31680 || y > 31680)
      throw damaged('a text frame');
    const { story, frames: nested, keptDocument } = readEmbedded(c, c.u32('a frame document length'), 'a frame document');
    // A floating frame (kinds 1 and 2) becomes a Word text box, which holds tables; a kind 3 one frame paragraphs, which do not.
    if (nested || (story.tables.length && !placement))
      throw new TxError('tables and frames inside text frames in TX documents are not supported yet.');
    frames.push({ anchor: anchor - 1, x, y, width, height, story, kept, keptDocument, ...(placement ? { placement } : {}) });
  }
  return frames;
}

const SIGNATURE_OBJECT = 0x8018;
/** The bytes before the image of a picture a signature box or a barcode shows: a picture's record from byte 20, its tag and two bytes. */
const PICTURE_FROM_20 = 26;

/**
 * A signature box of the body's frame table (object `0x8018`): the frame record (positions signed:
 * -4 in the InsuranceClaim sample), then the `u32` length of the picture it shows, then that
 * picture as a picture's record holds it from byte 20.
 */
function readSignatureBox(
  c: Cursor,
  text: string,
  head: { kept: Uint8Array; kind: number; anchor: number; place: [number, number, number, number]; settings: number[] },
): TxSignatureBox {
  const placement = PLACEMENTS[head.kind];
  if (!placement) throw new TxError(`signature boxes placed this way (kind ${head.kind}) in TX documents are not supported yet.`);
  if (head.settings[0] !== 100 || head.settings[1] !== 100)
    throw new TxError('scaled signature boxes in TX documents are not supported yet.');
  const [x, y] = head.place.slice(0, 2).map((value) => value | 0) as [number, number];
  const [, , width, height] = head.place;
  const { anchor } = head;
  if (anchor < 1 || anchor > text.length + 1 || width < 1 || height < 1 || width > 31680 || height > 31680)
    throw damaged('a signature box');
  if (Math.abs(x) > 31680 || Math.abs(y) > 31680) throw damaged('a signature box');
  const { type, data, kept } = readPictureFrom20(c, c.u32('a signature box picture'), 'a signature box picture');
  return {
    anchor: anchor - 1,
    x,
    y,
    width,
    height,
    kept: head.kept,
    placement,
    signature: { type, data, width, height, scaleX: 100, scaleY: 100, kept },
  };
}

/**
 * The tracked-change table: a count, then 47 bytes per change: 0-based start and end (exclusive)
 * in the story's text, the kind (1: inserted text), eight bytes the samples share, the time as a
 * FILETIME at byte 19, and bytes not decoded. Only insertions are seen in the samples; any other
 * kind is refused by name.
 */
const CHANGE_RECORD = 47;
const FILETIME_EPOCH_MS = Date.UTC(1601, 0, 1);
function readChanges(c: Cursor, text: string): TxChange[] {
  const count = c.u16('the tracked changes');
  const changes: TxChange[] = [];
  let previous = 0;
  for (let i = 0; i < count; i++) {
    const kept = c.peek(CHANGE_RECORD, 'a tracked change');
    const record = c.part(CHANGE_RECORD, 'a tracked change');
    const start = record.u32('a tracked change');
    const end = record.u32('a tracked change');
    const kind = record.u16('a tracked change');
    record.skip(9, 'a tracked change');
    const ticks = record.u32('a tracked change time') + record.u32('a tracked change time') * 2 ** 32;
    record.skip(CHANGE_RECORD - 27, 'a tracked change');
    if (start >= end || end > text.length || start < previous) throw damaged('a tracked change');
    if (kind !== 1) throw new TxError(`tracked changes of kind ${kind} (not inserted text) in TX documents are not supported yet.`);
    const time = new Date(FILETIME_EPOCH_MS + Math.floor(ticks / 10_000));
    if (Number.isNaN(time.getTime()) || time.getUTCFullYear() < 1980 || time.getUTCFullYear() > 9999)
      throw damaged('a tracked change time');
    changes.push({ start, end, kind: 'insertion', time, kept });
    previous = end;
  }
  return changes;
}

/**
 * The editable-region table: a count, then 37 bytes per region: `u32` start and end (0-based, end
 * exclusive), bytes the sample shares, the region's `u32` id at byte 21, zeros. A region for everyone
 * is the only kind seen (TX Text Control Words' Protected Document.tx); a region whose other bytes
 * differ (a named user's, presumably) is refused by name.
 */
const REGION_RECORD = 37;
const REGION_STUDIED = Uint8Array.from([0x08, 0x0c, 0x00, 0xff, 0x00, 0x00, 0x3c, 0, 0, 0, 0, 0, 0]);
export const TX_REGION_RECORD = (): Buffer => Buffer.concat([Buffer.alloc(8), REGION_STUDIED, Buffer.alloc(REGION_RECORD - 21)]);
function readRegions(c: Cursor, text: string): TxRegion[] {
  const count = c.u16('the editable regions');
  const regions: TxRegion[] = [];
  for (let i = 0; i < count; i++) {
    const kept = c.peek(REGION_RECORD, 'an editable region');
    const record = c.part(REGION_RECORD, 'an editable region');
    const start = record.u32('an editable region');
    const end = record.u32('an editable region');
    const studied = REGION_STUDIED.every((b) => record.u8('an editable region') === b);
    const id = record.u32('an editable region');
    const rest = record.rest();
    record.skip(rest.length, 'an editable region');
    if (start >= end || end > text.length) throw damaged('an editable region');
    if (!studied || rest.some((b) => b !== 0))
      throw new TxError('editable regions of this kind (for named users) in TX documents are not supported yet.');
    regions.push({ start, end, id, kept });
  }
  return regions;
}

/** Where TX keeps a document's protection in its settings: Word's protection attributes, `;`-separated. */
const PERMISSIONS = /__TX_PERM__;__TX_DOX_Begin__;([^\0]*?);__TX_DOX_End__;/;
const PROTECTION_EDITS = new Set(['none', 'readOnly', 'comments', 'trackedChanges', 'forms']);
/** The protection the settings hold, if any; values Word would not take are left out. */
export function readProtection(settings: Uint8Array): TxProtection | undefined {
  const match = PERMISSIONS.exec(Buffer.from(settings.buffer, settings.byteOffset, settings.length & ~1).toString('utf16le'));
  if (!match) return undefined;
  const [edit = '', , enforcement, algorithm, hash, salt, spin] = match[1]!.split(';');
  if (!PROTECTION_EDITS.has(edit)) throw new TxError(`document protection of the kind "${edit}" in TX documents is not supported yet.`);
  const base64 = /^[A-Za-z0-9+/]+={0,2}$/;
  const spinCount = Number(spin);
  const password =
    algorithm && /^SHA-(?:1|256|384|512)$/.test(algorithm) && base64.test(hash ?? '') && base64.test(salt ?? '') && spinCount > 0
      ? { algorithm, hash, salt, spinCount: Math.min(spinCount, 10_000_000) }
      : {};
  return { edit, enforced: enforcement === '1', ...password };
}

/**
 * Tables with spreadsheet formulas: after the cell borders, a `u16` count and the tables, laid out
 * as the block's own (TXSamples' Cashflow.tx; TextControl's ConditionalColor sample template).
 */
function readSheetTables(c: Cursor, tables: TxTable[], cellFormatCount: number, length: number): TxTable[] {
  const count = c.u16('the spreadsheet tables');
  if (count === 0) throw damaged('the spreadsheet tables');
  const sheet = Array.from({ length: count }, () => readTable(c, cellFormatCount, length));
  tables.push(...sheet);
  return sheet;
}

/**
 * The formulas' records, from after the marks (and any tracked changes, regions and pictures'
 * records) to the block's end. Their layout is not decoded (they hold bytes TX never set), so they
 * are kept whole; the cells' text is the values TX last calculated.
 */
function readFormulas(c: Cursor): Uint8Array {
  const formulas = c.rest().slice();
  c.skip(formulas.length, 'the spreadsheet formulas');
  return formulas;
}

/**
 * TX Text Control Words' closing table: a `u16` (8; 12 with link targets, 10 with conditional
 * instructions; 0 alone, an empty table), a `u16` count, then the link targets (34 bytes each: `u32` 0-based position,
 * `u16` index into the name list, bytes the samples keep at zero but one `u16` 2) or the form
 * fields' conditional instructions (a property record each: field id, kind, six bytes, `u32`
 * length, the text), then zero bytes to the block's end (94 or more in the samples).
 */
const TARGET_RECORD = 34;
const WORDS_TARGETS = 0x04;
const WORDS_CONDITIONS = 0x02;
function readWordsTable(
  c: Cursor,
  text: string,
  names: string[],
  fields: Map<number, TxField>,
): { targets: TxTarget[]; conditions: TxConditions[]; table: { head: number; zeros: number } } {
  const head = c.u16('the link targets');
  // An empty table (Cashflow.tx's header): its first `u16` 0 and nothing after.
  if (head === 0 && c.left === 0) return { targets: [], conditions: [], table: { head, zeros: 0 } };
  const count = c.u16('the link targets');
  if ((head & ~(WORDS_TARGETS | WORDS_CONDITIONS)) !== 0x08 || (head & WORDS_TARGETS && head & WORDS_CONDITIONS))
    throw new TxError(`it holds TX Text Control Words data this reader does not know (0x${head.toString(16)}).`);
  const targets: TxTarget[] = [];
  const conditions: TxConditions[] = [];
  for (let i = 0; i < count; i++) {
    if (head & WORDS_CONDITIONS) {
      const start = c.at;
      const field = c.u16('conditional instructions');
      c.skip(8, 'conditional instructions');
      const length = c.u32('conditional instructions');
      c.skip(length, 'conditional instructions');
      if (length % 2 !== 0 || fields.get(field)?.form === undefined) throw damaged('conditional instructions');
      conditions.push({ field, record: c.bytesFrom(start) });
      continue;
    }
    const kept = c.peek(TARGET_RECORD, 'a link target');
    const position = c.u32('a link target');
    const name = names[c.u16('a link target')];
    c.skip(TARGET_RECORD - 6, 'a link target');
    if (name === undefined || position > text.length) throw damaged('a link target');
    targets.push({ name, position, kept });
  }
  const zeros = c.rest();
  if (zeros.some((b) => b !== 0)) throw damaged('the link targets');
  c.skip(zeros.length, 'the link targets');
  return { targets, conditions, table: { head, zeros: zeros.length } };
}

/**
 * A picture's record: 40 bytes (`u16` 16 at byte 4, the horizontal and vertical scaling in percent,
 * the image's own width and height in twips, the `u32` length from byte 20 of the record to the
 * image's end), then the type's tag (`png\0`) and two bytes, then the image. Only inline pictures
 * of the types docsmith checks are read; any other is refused by name.
 */
const PICTURE_RECORD = 40;
const PICTURE_EXTRA = 42;
const PICTURE_TYPES: Record<string, (data: Uint8Array) => boolean> = {
  png: (d) => d[0] === 0x89 && d[1] === 0x50 && d[2] === 0x4e && d[3] === 0x47,
  jpg: (d) => d[0] === 0xff && d[1] === 0xd8 && d[2] === 0xff,
  gif: (d) => d[0] === 0x47 && d[1] === 0x49 && d[2] === 0x46 && d[3] === 0x38,
  bmp: (d) => d[0] === 0x42 && d[1] === 0x4d,
  emf: (d) => d[0] === 0x01 && d[1] === 0 && d[2] === 0 && d[3] === 0 && Buffer.from(d.subarray(40, 44)).toString('latin1') === ' EMF',
  wmf: (d) =>
    (d[0] === 0xd7 && d[1] === 0xcd && d[2] === 0xc6 && d[3] === 0x9a) ||
    ((d[0] === 1 || d[0] === 2) && d[1] === 0 && d[2] === 9 && d[3] === 0),
  svg: isSvg,
};

/**
 * SVG text: UTF-8, its root `svg` after an XML declaration and comments. A DOCTYPE is not taken
 * (entities are how XML bombs and file reads come in).
 */
function isSvg(data: Uint8Array): boolean {
  const head = Buffer.from(data.subarray(0, 4096))
    .toString('utf8')
    .replace(/^\uFEFF/, '');
  return /^\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*<svg[\s>]/.test(head) && !hasDoctype(data);
}

const hasDoctype = (data: Uint8Array): boolean => /<!DOCTYPE|<!ENTITY/i.test(Buffer.from(data).toString('latin1'));
/** TX's name for an image's type, by its bytes (PNG, JPEG, GIF, BMP, EMF, WMF), or undefined. */
export function pictureTypeOf(data: Uint8Array): string | undefined {
  return Object.entries(PICTURE_TYPES).find(([, check]) => data.length >= 44 && check(data))?.[0];
}

/**
 * A text box in line with the text: a 20-byte record (flags `0x8007`, as a text frame's; kind 0, the
 * scaling, the box's width and height in twips, the `u32` length of what follows), then the box's
 * own TX document, whose text is the box's (as a text frame's: no section record, its settings and
 * style sheet, a section count of 0).
 */
const BOX_OBJECT = 0x8007;
const BOX_HEAD = 20;

/**
 * The 20 bytes every entry of the picture table starts with: its object (`u16`; 0 a picture,
 * `0x8007` a text box), a `u16`, its kind, the scaling in percent, its own width and height in
 * twips, two bytes, and the `u32` length of what follows from byte 20.
 */
function readObjectHead(c: Cursor, what: string) {
  const object = c.u16(what);
  const zero = c.u16(what);
  const kind = c.u16(what);
  const scaleX = c.u16(what);
  const scaleY = c.u16(what);
  const width = c.u16(what);
  const height = c.u16(what);
  c.skip(2, what);
  const length = c.u32(what);
  return { object, zero, kind, scaleX, scaleY, width, height, length };
}

function readBox(c: Cursor): TxPicture {
  const kept = c.peek(BOX_HEAD, 'a text box');
  const { zero, kind, scaleX, scaleY, width, height, length } = readObjectHead(c.part(BOX_HEAD, 'a text box'), 'a text box');
  if (zero !== 0 || width < 1 || height < 1 || width > 31680 || height > 31680) throw damaged('a text box');
  if (kind !== 0 || scaleX !== 100 || scaleY !== 100)
    throw new TxError(`text boxes of this kind (${kind}, scaled) in TX documents are not supported yet.`);
  const { story, frames, keptDocument } = readEmbedded(c, length, 'a text box document');
  // Word holds no text box inside a text box.
  if (frames || story.pictures?.some((picture) => picture.box))
    throw new TxError('text frames and text boxes inside text boxes in TX documents are not supported yet.');
  return { type: 'box', data: new Uint8Array(0), width, height, scaleX, scaleY, kept, box: { story, keptDocument } };
}

/**
 * A barcode in line (object `0x8010`, TextControl's Barcode sample): the 20-byte head, 16 bytes
 * (`u32` 100 and 16, the `u32` length of the barcode's XML, `u32` 0), TX's barcode XML
 * (`BarcodeData_TXBarcode_3.0`: its type, text, colours, size), then the picture TX last drew of it,
 * as a picture's record holds one from byte 20. Word has no barcode object: the picture stands in.
 */
const BARCODE_OBJECT = 0x8010;
const BARCODE_HEAD = 36;
function readBarcode(c: Cursor): TxPicture {
  const head = c.peek(BARCODE_HEAD, 'a barcode');
  const { zero, kind, scaleX, scaleY, width, height, length } = readObjectHead(c.part(20, 'a barcode'), 'a barcode');
  if (zero !== 0 || width < 1 || height < 1 || scaleX < 1 || scaleY < 1 || scaleX > 10_000 || scaleY > 10_000) throw damaged('a barcode');
  if (kind !== 0) throw new TxError(`barcodes of this kind (${kind}) in TX documents are not supported yet.`);
  const body = c.part(length, 'a barcode');
  body.skip(8, 'a barcode');
  const xmlLength = body.u32('a barcode');
  body.skip(4, 'a barcode');
  const xml = Buffer.from(body.peek(xmlLength, 'a barcode')).toString('utf8');
  body.skip(xmlLength, 'a barcode');
  if (!/^(?:\uFEFF)?<\?xml[^>]*\?>\s*<BarcodeData_TXBarcode_[\d.]+>/.test(xml)) throw damaged('a barcode');
  const { type, data, kept } = readPictureFrom20(body, body.left, 'a barcode picture');
  return { type, data, width, height, scaleX, scaleY, kept, barcode: { kept: head, xml } };
}

/**
 * A picture as a picture's record holds it from byte 20 (`u16` 0 and 220, the `u32` length of
 * the rest, twelve zero bytes, the type's tag and two bytes, the image), `length` bytes: what a
 * signature box or a barcode shows.
 */
function readPictureFrom20(c: Cursor, length: number, what: string): { type: string; data: Uint8Array; kept: Uint8Array } {
  const picture = c.part(length, what);
  const kept = picture.peek(PICTURE_FROM_20, what);
  if (picture.u16(what) !== 0) throw damaged(what);
  picture.skip(2, what);
  if (picture.u32(what) !== length) throw damaged(what);
  picture.skip(12, what);
  const type = picture.latin1(4, what);
  picture.skip(2, what);
  const data = picture.rest().slice();
  picture.skip(data.length, what);
  checkPicture(type, data);
  return { type, data, kept };
}

function readPicture(c: Cursor): TxPicture {
  const head = c.peek(2, 'a picture');
  const object = head[0]! | (head[1]! << 8);
  if (object === BOX_OBJECT) return readBox(c);
  if (object === BARCODE_OBJECT) return readBarcode(c);
  // 0: a picture; 0x8018: a signature box in line (the Financial sample's), read as the picture it shows.
  if (object !== 0 && object !== SIGNATURE_OBJECT)
    throw new TxError(`objects of kind 0x${object.toString(16)} in the text of TX documents are not supported yet.`);
  const kept = c.peek(PICTURE_RECORD + 6, 'a picture');
  const record = c.part(PICTURE_RECORD, 'a picture');
  const { kind, scaleX, scaleY, width, height, length } = readObjectHead(record, 'a picture');
  record.skip(record.left, 'a picture');
  const type = c.latin1(4, 'a picture').replace(/\0.*$/s, '');
  c.skip(2, 'a picture');
  if (length < PICTURE_RECORD - 20 + 6 + 8) throw damaged('a picture');
  const data = c.peek(length - (PICTURE_RECORD - 20 + 6), 'a picture');
  c.skip(data.length, 'a picture');
  // 16 with the PNG of Booking Request.tx, 0 with the metafiles of the Parallel sample: both in line with the text.
  if (kind !== 16 && kind !== 0) throw new TxError(`pictures of this kind (${kind}) in TX documents are not supported yet.`);
  if (width < 1 || height < 1 || scaleX < 1 || scaleY < 1 || scaleX > 10_000 || scaleY > 10_000) throw damaged('a picture');
  // A picture linked to a file (the InsuranceClaim sample's logo): the record's last `u32` is the
  // length of its path, which starts in the two bytes after the type's tag. Never followed here.
  const linkLength = Buffer.from(kept.buffer, kept.byteOffset, kept.length).readUInt32LE(36);
  if (linkLength) {
    const path = Buffer.concat([kept.subarray(44, 46), data]);
    if (linkLength >= path.length || path[linkLength] !== 0) throw damaged('a linked picture');
    return { type, data, width, height, scaleX, scaleY, kept, linked: path.subarray(0, linkLength).toString('latin1') };
  }
  checkPicture(type, data);
  return { type, data, width, height, scaleX, scaleY, kept, ...(object === SIGNATURE_OBJECT ? { signatureBox: true as const } : {}) };
}

/** The image's bytes must be what its type's tag says, of a type read here. */
function checkPicture(type: string, data: Uint8Array): void {
  const check = PICTURE_TYPES[type];
  if (!check) throw new TxError(`pictures of type "${type.replace(/[^\x20-\x7e]/g, '?')}" in TX documents are not supported yet.`);
  if (type === 'svg' && hasDoctype(data))
    throw new TxError('SVG pictures with a DOCTYPE (entity declarations) in TX documents are not supported.');
  if (!check(data)) throw damaged(`a ${type} picture`);
}

/** The runs, and each field's kind (a field's runs must agree on it). */
function readRuns(c: Cursor, count: number, fontCount: number, length: number): { runs: TxRun[]; kinds: Map<number, number> } {
  const runs: TxRun[] = [];
  const kinds = new Map<number, number>();
  let next = 1;
  for (let i = 0; i < count; i++) {
    const kept = c.peek(20, 'a run');
    const format = c.u16('a run');
    const position = c.u16('a run');
    const runLength = c.u32('a run');
    const textColour = c.u32('a run');
    const field = c.u16('a run');
    const kind = c.u16('a run');
    const background = c.u32('a run');
    // Runs tile the text exactly, in order. A run of no text is a field's (page fields, targets,
    // links), an empty story's one run, or one of no field at all (TextControl's CustomSigning and
    // Barcode samples); any other is damage.
    const empty =
      runLength === 0 &&
      !(length === 0 && count === 1) &&
      !PAGE_KINDS[kind] &&
      !isBlockField(kind) &&
      !isHyperlink(kind) &&
      (field !== 0 || kind !== 0);
    if (position !== next || empty || format < 1 || format > fontCount) throw damaged('the character runs do not tile the text');
    next = position + runLength;
    if (
      field !== 0 &&
      !isWordField(kind) &&
      !isBlockField(kind) &&
      !isHyperlink(kind) &&
      kind !== PLACE_LINK &&
      !FORM_KINDS[kind] &&
      !PAGE_KINDS[kind]
    ) {
      throw new TxError(`it holds a field of a kind this reader does not know (0x${kind.toString(16)}).`);
    }
    if (field !== 0) {
      if ((kinds.get(field) ?? kind) !== kind) throw damaged('a field whose runs disagree on its kind');
      kinds.set(field, kind);
    }
    runs.push({
      start: position - 1,
      end: position - 1 + runLength,
      format: format - 1,
      colour: decodeColour(textColour),
      background: decodeColour(background),
      field,
      kept,
    });
  }
  if (next !== length + 1) throw damaged('the character runs do not cover the text');
  return { runs, kinds };
}

function readCharFormat(c: Cursor): TxCharFormat {
  const kept = c.peek(50, 'a character format');
  const height = c.i16('a character format');
  c.skip(6, 'a character format');
  const weight = c.i16('a character format');
  const italic = c.u8('a character format');
  const underline = c.u8('a character format');
  const strike = c.u8('a character format');
  c.skip(5, 'a character format');
  const face = c.latin1(32, 'a face name');
  // Heights in tenths of a half point, negative; under half a point is no size TX writes.
  if (height > -5 || height < -32767) throw damaged(`a font size of ${height}`);
  return {
    face,
    halfPoints: Math.round(-height / 10),
    bold: weight >= 600,
    italic: italic !== 0,
    underline: underline !== 0,
    strike: strike !== 0,
    kept,
  };
}

function readParagraphs(c: Cursor, count: number, formatCount: number, text: string): TxParagraph[] {
  const paragraphs: TxParagraph[] = [];
  let next = 1;
  for (let i = 0; i < count; i++) {
    const format = c.u16('a paragraph');
    const start = c.u16('a paragraph');
    const end = c.u16('a paragraph');
    if (start !== next || end < start || format < 1 || format > formatCount) throw damaged('the paragraphs do not tile the text');
    // Each paragraph ends with its mark, except the last, which is the end of the text.
    const last = end === text.length + 1;
    if (!last && text[end - 1] !== '\n') throw damaged('a paragraph does not end with a paragraph mark');
    paragraphs.push({ start: start - 1, end: last ? text.length : end, format: format - 1 });
    next = end + 1;
    if (last) {
      if (i !== count - 1) throw damaged('the paragraphs do not tile the text');
      break;
    }
  }
  if (next !== text.length + 2) throw damaged('the paragraphs do not cover the text');
  return paragraphs;
}

const TAB_STOPS = 14;
const DECIMAL_TAB = 4;
const MARGIN_TAB = 5;
const UNUSED_TAB = 0x7fff;
const ALIGNMENT = 0xc000;
const KEEP_NEXT = 0x0008;
/** With keep-with-next on the Parallel sample's letterhead address lines: read as keeping a paragraph's lines together. */
const KEEP_LINES = 0x0001;
/** The line spacing's top bit: the rest is a height in twips the lines have at least. */
const AT_LEAST = 0x8000;

function readParaFormat(c: Cursor): TxParaFormat {
  const kept = c.peek(62, 'a paragraph format');
  const flags = c.u16('a paragraph format');
  const indents = [c.u16('a paragraph format'), c.u16('a paragraph format'), c.u16('a paragraph format')];
  const spaceBefore = c.u16('a paragraph format');
  const spaceAfter = c.u16('a paragraph format');
  const lineSpacing = c.u16('a paragraph format');
  c.skip(6, 'a paragraph format');
  // Fourteen tab stops, as TX keeps them: a kind (1 left, 4 decimal, 5 right at the right margin)
  // and a position; 32767 marks an unused one.
  const tabs: number[] = [];
  const rightTabs: number[] = [];
  const decimalTabs: number[] = [];
  for (let i = 0; i < TAB_STOPS; i++) {
    const kind = c.u8('a tab stop');
    const position = c.u16('a tab stop');
    if (position === UNUSED_TAB) continue;
    if (kind === MARGIN_TAB && position === 0) {
      // The Parallel sample's footers: page numbers at the right margin.
      rightTabs.push(position);
      continue;
    }
    if (kind === DECIMAL_TAB && position > 0 && position <= 31680) {
      // TextControl's MailMerge.WebAPI sample: a price column.
      decimalTabs.push(position);
      continue;
    }
    if (kind !== 1)
      throw new TxError(
        `tab stops of kind ${kind} at ${position} (not left, decimal or at the right margin) in TX documents are not supported yet.`,
      );
    // A stop may repeat the one before it (TextControl's Parallel sample); it adds nothing.
    if (position === 0 || position < (tabs[tabs.length - 1] ?? 0)) throw damaged('the tab stops');
    tabs.push(position);
  }
  // Alignment in the top two bits, as the public samples show it: money columns right (0x4000),
  // year headings and narrow columns centred (0x8000). 0x08 comes with table header cells; 0x20
  // is on nearly every paragraph and changes nothing seen. Any other bit is refused.
  if (flags & ~(ALIGNMENT | KEEP_NEXT | KEEP_LINES | 0x20))
    throw new TxError(`paragraph settings in TX documents that this reader does not know are not supported yet (0x${flags.toString(16)}).`);
  // Indents: the second is the right one (TextControl's MailMerge.WebAPI sample, a right-aligned
  // total kept off the right edge); the first the left one; the third, signed, the first line's
  // from the left one (the NDA samples' numbered clauses: 1440 left, -720 hanging).
  const [leftIndent = 0, rightIndent = 0, first = 0] = indents;
  const firstLine = (first << 16) >> 16;
  if (leftIndent > 31680 || rightIndent > 31680 || leftIndent + firstLine < -31680) throw damaged('a paragraph indent');
  const indent = leftIndent || rightIndent || firstLine ? { indent: { left: leftIndent, right: rightIndent, firstLine } } : {};
  const atLeast = lineSpacing & AT_LEAST ? lineSpacing & ~AT_LEAST : undefined;
  if (atLeast === undefined ? lineSpacing < 10 || lineSpacing > 1000 : atLeast < 1 || atLeast > 31680)
    throw new TxError(`it uses a line spacing this reader does not know (${lineSpacing}).`);
  const alignment = (['left', 'right', 'center', 'both'] as const)[(flags & ALIGNMENT) >> 14]!;
  const line = atLeast === undefined ? { lineSpacing } : { lineSpacing: 100, atLeast };
  const right = { ...(rightTabs.length ? { rightTabs } : {}), ...(decimalTabs.length ? { decimalTabs } : {}) };
  const keepLines = flags & KEEP_LINES ? { keepLines: true } : {};
  return {
    alignment,
    keepNext: (flags & KEEP_NEXT) !== 0,
    ...keepLines,
    ...indent,
    spaceBefore,
    spaceAfter,
    ...line,
    tabs,
    ...right,
    kept,
  };
}

const MERGED_LEFT = 0x01;
const MERGED_UP = 0x02;
const MERGED_RIGHT = 0x04;

function readTable(c: Cursor, cellFormatCount: number, length: number): TxTable {
  const kept = c.peek(12, 'a table');
  const rows = c.u16('a table');
  const columns = c.u16('a table');
  c.skip(8, 'a table');
  if (rows === 0 || columns === 0 || rows * columns > 100_000) throw damaged('a table');
  const cells: TxCell[] = [];
  for (let i = 0; i < rows * columns; i++) {
    const keptCell = c.peek(18, 'a table cell');
    const start = c.u16('a table cell');
    const end = c.u16('a table cell');
    const left = c.u32('a table cell');
    const width = c.u32('a table cell');
    const format = c.u16('a table cell');
    const flags = c.u32('a table cell');
    if (flags & ~(MERGED_LEFT | MERGED_UP | MERGED_RIGHT))
      throw new TxError(`tables with cells of this kind (0x${flags.toString(16)}) in TX documents are not supported yet.`);
    const column = i % columns;
    const before = column > 0 ? cells[i - 1] : undefined;
    const above = i >= columns ? cells[i - columns] : undefined;
    // A cell merged into another holds no text; it keeps its own place in the grid.
    const into = Boolean(flags & (MERGED_LEFT | MERGED_UP));
    if (
      (flags & MERGED_LEFT && !before?.merged?.right) ||
      (flags & MERGED_UP && !above) ||
      (flags & MERGED_RIGHT && column === columns - 1)
    )
      throw damaged('a merged table cell');
    if (into ? end !== start - 1 : end < start) throw damaged('a table cell');
    if (start < 1 || end > length || format < 1 || format > cellFormatCount) throw damaged('a table cell');
    if (i > 0 && start !== cells[i - 1]!.end + 1) throw damaged('the cells of a table do not follow each other');
    if (before && left <= before.left) throw new TxError('tables with merged or irregular cells in TX documents are not supported yet.');
    const merged: Pick<TxCell, 'merged'> = {};
    if (flags) {
      const sides: NonNullable<TxCell['merged']> = {};
      if (flags & MERGED_LEFT) sides.left = true;
      if (flags & MERGED_RIGHT) sides.right = true;
      if (flags & MERGED_UP) sides.up = true;
      merged.merged = sides;
    }
    cells.push({ start: start - 1, end, left, width, format: format - 1, ...merged, kept: keptCell });
  }
  return { rows, columns, cells, kept };
}

function readCellFormat(c: Cursor): TxCellFormat {
  const kept = c.peek(28, 'a cell format');
  const borders = [0, 1, 2, 3].map(() => c.u16('a cell format')) as TxCellFormat['borders'];
  const padding = [0, 1, 2, 3].map(() => c.u16('a cell format')) as TxCellFormat['padding'];
  const shading = decodeColour(c.u32('a cell format'));
  const flags = c.u16('a cell format');
  c.skip(6, 'a cell format');
  return { borders, padding, shading, borderColours: [null, null, null, null], headerRow: (flags & 0x0800) !== 0, kept };
}

/** What a field's kept property records say (kind 0 its name, 7 its instruction, 1 a link's address), as the reader takes them. */
export function fieldOfRecords(records: readonly Uint8Array[]): Omit<TxField, 'kept'> {
  const field: Omit<TxField, 'kept'> = { instruction: [] };
  for (const bytes of records) {
    const kind = bytes[2]! | (bytes[3]! << 8);
    const value = Buffer.from(bytes.subarray(14)).toString('utf16le');
    if (kind === 0) field.name = value.replace(/\0+$/, '');
    else if (kind === 7) field.instruction = value.split('\0').filter((token) => token !== '');
    else if (kind === 1) field.link = value.replace(/\0+$/, '');
    else if (kind === 2) field.target = value.replace(/\0+$/, '');
  }
  return field;
}

/** A drop-down's items as TX keeps them: separated by NUL, the list ended by two (none: just the two). */
function itemsOf(value: string): string[] {
  if (!value.endsWith('\0\0')) throw damaged('the items of a drop-down form field');
  return value === '\0\0' ? [] : value.slice(0, -2).split('\0');
}

/** The run kind of a field's runs: a hyperlink, a link to a place, a merge field, another Word field (the kept kind where it still fits). */
export function fieldKindOf(field: TxField, kept?: number): number {
  if (field.form) return FORM_FIELD_KINDS[field.form.kind];
  if (field.page) return PAGE_FIELD_KINDS[field.page];
  if (field.block !== undefined) return kept !== undefined && isBlockField(kept) ? kept : BLOCK_FIELD;
  const link = field.link !== undefined ? HYPERLINK : field.target !== undefined ? PLACE_LINK : undefined;
  const kind = link ?? (field.instruction[0]?.toUpperCase() === 'MERGEFIELD' ? MERGE_FIELD : WORD_FIELD);
  const same = kept === kind || (link === HYPERLINK && isHyperlink(kept!)) || (link === undefined && isWordField(kept!));
  return kept !== undefined && same ? kept : kind;
}

function readFieldProperties(c: Cursor, count: number, kinds: Map<number, number>): Map<number, TxField> {
  const fields = new Map<number, TxField>();
  const used = new Set(kinds.keys());
  for (let i = 0; i < count; i++) {
    const start = c.at;
    const id = c.u16('a field property');
    const kind = c.u16('a field property');
    c.skip(6, 'a field property');
    const bytes = c.u32('a field property');
    if (bytes % 2 !== 0) throw damaged('a field property');
    const value = c.utf16(bytes / 2, 'a field property');
    if (!used.has(id)) throw damaged('a property of a field that is not in the text');
    const field = fields.get(id) ?? { instruction: [], kept: [] };
    field.kept!.push(c.bytesFrom(start));
    if (isBlockField(kinds.get(id)!)) {
      if (kind !== 4 || !TARGET_NAME.test(value.replace(/\0+$/, '')))
        throw new TxError(`it holds a merge block field this reader does not know (${kind}).`);
      field.block = value.replace(/\0+$/, '');
      fields.set(id, field);
      continue;
    }
    const page = PAGE_KINDS[kinds.get(id)!];
    if (page) {
      if (kind !== kinds.get(id)! >> 8 || bytes !== 0)
        throw new TxError(`it holds a page field property this reader does not know (${kind}).`);
      field.page = page;
      fields.set(id, field);
      continue;
    }
    const form = FORM_KINDS[kinds.get(id)!];
    if (form) {
      field.form ??= { kind: form, items: [] };
      if (kind === 0) field.name = value.replace(/\0+$/, '');
      else if (kind === ITEMS && form === 'dropdown') field.form.items = itemsOf(value);
      else if (kind === CHECK_BOX && form === 'checkbox' && bytes === 0) {
        const record = c.bytesFrom(start);
        field.form.checked = String.fromCharCode(record[6]! | (record[7]! << 8));
        field.form.unchecked = String.fromCharCode(record[8]! | (record[9]! << 8));
      } else if (kind !== DATE_SETTINGS || form !== 'date')
        throw new TxError(
          `it holds a form field property this reader does not know (${kind}: ${JSON.stringify(value)} ${Buffer.from(c.bytesFrom(start)).subarray(0, 14).toString('hex')}).`,
        );
      fields.set(id, field);
      continue;
    }
    if (kind === 0) field.name = value.replace(/\0+$/, '');
    else if (kind === 7 && !isHyperlink(kinds.get(id)!) && kinds.get(id) !== PLACE_LINK)
      field.instruction = value.split('\0').filter((token) => token !== '');
    else if (kind === 1 && isHyperlink(kinds.get(id)!)) {
      const link = value.replace(/\0+$/, '');
      // Only addresses a reader follows by a click; nothing here is ever fetched.
      if (!isLinkAddress(link))
        throw new TxError(
          `hyperlinks to "${link.split(':')[0]}:" addresses or rooted paths in TX documents are not supported; only http, https, mailto, ftp and paths relative to the document.`,
        );
      field.link = link;
    } else if (kind === 2 && kinds.get(id) === PLACE_LINK) field.target = value.replace(/\0+$/, '');
    else throw new TxError(`it holds a field property this reader does not know (${kind}).`);
    fields.set(id, field);
  }
  for (const id of used) {
    const field = fields.get(id);
    const kind = kinds.get(id);
    if (
      isBlockField(kind!)
        ? field?.block === undefined
        : PAGE_KINDS[kind!]
          ? !field?.page
          : FORM_KINDS[kind!]
            ? !field?.form
            : isHyperlink(kind!)
              ? !field?.link
              : kind === PLACE_LINK
                ? !field?.target
                : !field?.instruction.length
    )
      throw damaged('a field without its instruction or address');
  }
  return fields;
}

/** The section's header and footer streams, in this order when present (the streams follow the fixed part). */
const HEADER = 0x01;
const FIRST_HEADER = 0x02;
const FOOTER = 0x04;
const FIRST_FOOTER = 0x08;

/**
 * The section list: one section, its page, and its header and footer streams. The section's
 * fixed part is 46 bytes, the streams its flags name follow (header, first-page header, footer,
 * first-page footer: TextControl's Parallel sample has all four, a letterhead on the first page),
 * then `u32 1` and 68 bytes.
 */
function readSections(c: Cursor): Pick<TxDocument, 'page' | 'header' | 'footer' | 'firstHeader' | 'firstFooter'> & {
  kept: Omit<TxFileKept, 'settings'>;
} {
  const count = c.u16('the section count');
  if (count !== 1) {
    // Several sections are named only when their lengths walk to the file's end; anything else is damage.
    const walk = c.part(c.left, 'the section list');
    let whole = count > 1 && count <= 1000;
    for (let i = 0; whole && i < count; i++) {
      const length = walk.left >= 4 ? walk.u32('a section') : 0;
      whole = length >= 4 && length - 4 <= walk.left;
      if (whole) walk.skip(length - 4, 'a section');
    }
    throw whole && walk.left === 0 ? new TxError('documents with several sections are not supported yet.') : damaged('the section count');
  }
  const length = c.u32('the section length');
  if (length < 4) throw damaged('the section length');
  const section = c.part(length - 4, 'the section');
  const fixed = section.peek(46, 'the section');
  if (section.u32('the section') !== 0x32) throw damaged('the section');
  const flags = section.u16('the section');
  if ((flags & 0xff00) !== 0x4000 || flags & ~(0x4000 | HEADER | FIRST_HEADER | FOOTER | FIRST_FOOTER))
    throw new TxError(`headers and footers of this kind (0x${flags.toString(16)}) in TX documents are not supported yet.`);
  section.skip(4, 'the section');
  const headerDistance = section.u16('the header distances');
  const footerDistance = section.u16('the header distances');
  section.skip(4, 'the header distances');
  const width = section.u32('the page size');
  const height = section.u32('the page size');
  const margins = [0, 1, 2, 3].map(() => section.u16('the page margins')) as TxPage['margins'];
  if (width < 1440 || height < 1440 || width > 31680 || height > 31680)
    throw new TxError(`it has a page size this reader does not know (${width} x ${height} twips).`);
  if (margins[0] + margins[2] >= width || margins[1] + margins[3] >= height) throw damaged('the page margins');
  section.skip(12, 'the section');
  const stream = (flag: number, story: 'header' | 'footer') => {
    if (!(flags & flag)) return undefined;
    const read = readStream(section, story);
    // A text box in a footer is kept as read (the SDK invoice's is empty); one in a header is not seen.
    if (read.frames && story === 'header') throw new TxError('text boxes in TX headers are not supported yet.');
    return read.story;
  };
  const header = stream(HEADER, 'header');
  const firstHeader = stream(FIRST_HEADER, 'header');
  const footer = stream(FOOTER, 'footer');
  const firstFooter = stream(FIRST_FOOTER, 'footer');
  const sectionEnd = section.peek(72, 'the section end');
  if (section.u32('the section end') !== 1) throw damaged('the section end');
  section.skip(68, 'the section end');
  section.expectEnd('the section');
  return {
    page: { width, height, margins, headerDistance, footerDistance },
    header,
    footer,
    ...(firstHeader ? { firstHeader } : {}),
    ...(firstFooter ? { firstFooter } : {}),
    kept: { section: fixed, sectionEnd },
  };
}
