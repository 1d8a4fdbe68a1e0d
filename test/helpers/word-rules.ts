import { createHash } from 'node:crypto';
import { unzipSync } from 'fflate';
import { CompiledTemplate } from '../../src/merge/engine.js';
import { attr, childElements, parseXml, walk, type XmlElement } from '../../src/ooxml/xml.js';
import { OoxmlPackage } from '../../src/ooxml/package.js';
import { schemaOrderProblems } from '../../src/ooxml/properties-order.js';
import { ecma376Problems, ecma376Skip } from './ecma376.js';

/**
 * A second oracle for DOCX output that does not go through LibreOffice: the rules Word applies
 * when it opens a file, where LibreOffice forgives. Each problem is "rule: where and what", so
 * a test can tell its own output's faults from those its input already had (see `newProblems`).
 *
 * The rules (ECMA-376 Part 1 and Word's behaviour, MS-OI29500):
 * - package: every part has a content type, every override names a part, every internal
 *   relationship target exists, the main document is there;
 * - xml: every XML part is well formed and declares the prefixes its mc:Ignorable names;
 * - rel-id: every r:id / r:embed / r:link names a relationship of its part;
 * - blip: a picture's main blip is raster or metafile (Word shows nothing for an SVG main blip;
 *   SVG belongs in the asvg:svgBlip extension), and an svgBlip is SVG;
 * - docpr-id: drawing ids (wp:docPr/@id) are unique in the document (Word repairs the file);
 * - bookmark: bookmark ids are unique in a story and every start has its end;
 * - field: complex fields nest properly (begin, at most one separate, end);
 * - table: a table has its grid and rows, a row has cells, a cell ends with a paragraph
 *   (Word reports a cell that ends with a table as unreadable content);
 * - story: headers, footers, notes and comments hold at least one paragraph; the body's
 *   section properties come last; paragraphs do not nest outside text boxes;
 * - content: each WordprocessingML container holds only the elements its content model allows
 *   (a run in a run, text straight in a paragraph, a paragraph in a run are refused by Word);
 * - order: property elements in schema order (pPr, rPr, sectPr, ...).
 */
export function wordProblems(docx: Uint8Array): string[] {
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(docx);
  } catch (error) {
    return [`package: not a ZIP archive (${(error as Error).message})`];
  }
  const problems: string[] = [];
  const names = new Set(Object.keys(files).filter((n) => !n.endsWith('/')));
  const text = (name: string) => new TextDecoder().decode(files[name]);
  const parsed = new Map<string, XmlElement>();
  for (const name of names) {
    if (!/\.(xml|rels)$/i.test(name)) continue;
    try {
      parsed.set(name, parseXml(text(name), name).root);
    } catch (error) {
      problems.push(`xml: ${name} is not well-formed XML (${(error as Error).message})`);
    }
  }

  const types = parsed.get('[Content_Types].xml');
  if (!types) return [...problems, 'package: [Content_Types].xml is missing'];
  const defaults = new Set(childElements(types, 'Default').map((d) => (attr(d, 'Extension') ?? '').toLowerCase()));
  const overrides = new Map(
    childElements(types, 'Override').map((o) => [(attr(o, 'PartName') ?? '').replace(/^\//, ''), attr(o, 'ContentType') ?? '']),
  );
  for (const part of overrides.keys())
    if (!names.has(part)) problems.push(`package: a content type is declared for ${part}, which is not in the package`);
  for (const name of names) {
    if (name === '[Content_Types].xml') continue;
    const ext = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1).toLowerCase() : '';
    if (!overrides.has(name) && !defaults.has(ext)) problems.push(`package: ${name} has no content type`);
  }

  const relsOf = (part: string) => {
    const relsName =
      part === '' ? '_rels/.rels' : `${part.slice(0, part.lastIndexOf('/') + 1)}_rels/${part.slice(part.lastIndexOf('/') + 1)}.rels`;
    const root = parsed.get(relsName);
    return root
      ? childElements(root, 'Relationship').map((r) => ({
          id: attr(r, 'Id') ?? '',
          type: attr(r, 'Type') ?? '',
          target: attr(r, 'Target') ?? '',
          external: attr(r, 'TargetMode') === 'External',
        }))
      : [];
  };
  const main = relsOf('').find((r) => r.type.endsWith('/officeDocument'));
  const mainPart = main ? OoxmlPackage.resolve('', main.target) : undefined;
  if (!mainPart || !names.has(mainPart)) problems.push('package: the main document part is missing');

  const drawingIds = new Map<string, string>();
  for (const [name, root] of parsed) {
    if (name.endsWith('.rels') || name === '[Content_Types].xml') continue;
    const rels = relsOf(name);
    for (const rel of rels) {
      if (rel.external) continue;
      const target = OoxmlPackage.resolve(name, rel.target);
      if (!names.has(target)) problems.push(`package: ${name} relationship ${rel.id} points at ${target}, which is not in the package`);
    }
    if (!name.startsWith('word/')) continue;
    problems.push(...partProblems(name, root, rels, overrides, drawingIds));
  }
  return problems;
}

const RASTER = /^image\/(png|jpeg|gif|bmp|tiff|x-emf|x-wmf|emf|wmf)$/;
const REL_ATTRS = new Set(['r:id', 'r:embed', 'r:link', 'r:pict', 'r:dm', 'r:lo', 'r:qs', 'r:cs', 'r:href']);
/** Where a paragraph may not stand (it may below a text box's content, inside a run's drawing). */
const INLINE = new Set(['w:p', 'w:r', 'w:hyperlink', 'w:fldSimple', 'w:smartTag']);
const STORIES = new Set(['w:hdr', 'w:ftr', 'w:footnote', 'w:endnote', 'w:comment']);

// Content models of the WordprocessingML containers (ECMA-376 Part 1, 17.2-17.4 and the groups
// EG_BlockLevelElts, EG_ContentRunContent, EG_RunInnerContent, EG_RangeMarkupElements): the
// WordprocessingML children each may hold. Children of other namespaces (markup compatibility,
// Word's extensions, math) are not judged here.
const RANGE_MARKUP = [
  'bookmarkStart',
  'bookmarkEnd',
  'moveFromRangeStart',
  'moveFromRangeEnd',
  'moveToRangeStart',
  'moveToRangeEnd',
  'commentRangeStart',
  'commentRangeEnd',
  'customXmlInsRangeStart',
  'customXmlInsRangeEnd',
  'customXmlDelRangeStart',
  'customXmlDelRangeEnd',
  'customXmlMoveFromRangeStart',
  'customXmlMoveFromRangeEnd',
  'customXmlMoveToRangeStart',
  'customXmlMoveToRangeEnd',
  'permStart',
  'permEnd',
  'proofErr',
  'ins',
  'del',
  'moveFrom',
  'moveTo',
];
const BLOCK_LEVEL = ['p', 'tbl', 'sdt', 'customXml', 'altChunk', ...RANGE_MARKUP];
const PARAGRAPH_CONTENT = ['r', 'hyperlink', 'fldSimple', 'sdt', 'customXml', 'smartTag', 'dir', 'bdo', 'subDoc', ...RANGE_MARKUP];
const RUN_CONTENT = [
  'rPr',
  'br',
  't',
  'contentPart',
  'delText',
  'instrText',
  'delInstrText',
  'noBreakHyphen',
  'softHyphen',
  'dayShort',
  'monthShort',
  'yearShort',
  'dayLong',
  'monthLong',
  'yearLong',
  'annotationRef',
  'footnoteRef',
  'endnoteRef',
  'separator',
  'continuationSeparator',
  'sym',
  'pgNum',
  'cr',
  'tab',
  'object',
  'pict',
  'fldChar',
  'ruby',
  'footnoteReference',
  'endnoteReference',
  'commentReference',
  'drawing',
  'ptab',
  'lastRenderedPageBreak',
];
const CONTENT: Record<string, Set<string>> = Object.fromEntries(
  Object.entries({
    body: [...BLOCK_LEVEL, 'sectPr'],
    hdr: BLOCK_LEVEL,
    ftr: BLOCK_LEVEL,
    footnote: BLOCK_LEVEL,
    endnote: BLOCK_LEVEL,
    comment: BLOCK_LEVEL,
    txbxContent: BLOCK_LEVEL,
    docPartBody: BLOCK_LEVEL,
    tc: ['tcPr', ...BLOCK_LEVEL],
    tbl: ['tblPr', 'tblGrid', 'tr', 'sdt', 'customXml', ...RANGE_MARKUP],
    tr: ['tblPrEx', 'trPr', 'tc', 'sdt', 'customXml', ...RANGE_MARKUP],
    p: ['pPr', ...PARAGRAPH_CONTENT],
    hyperlink: PARAGRAPH_CONTENT,
    fldSimple: ['fldData', ...PARAGRAPH_CONTENT],
    smartTag: ['smartTagPr', ...PARAGRAPH_CONTENT],
    r: RUN_CONTENT,
  }).map(([name, children]) => [`w:${name}`, new Set(children.map((child) => `w:${child}`))]),
);

function partProblems(
  name: string,
  root: XmlElement,
  rels: { id: string; target: string; external: boolean }[],
  overrides: Map<string, string>,
  drawingIds: Map<string, string>,
): string[] {
  const problems: string[] = [];
  const relIds = new Map(rels.map((r) => [r.id, r]));
  const typeOf = (relId: string) => {
    const rel = relIds.get(relId);
    if (!rel || rel.external) return undefined;
    const target = OoxmlPackage.resolve(name, rel.target);
    const ext = target.slice(target.lastIndexOf('.') + 1).toLowerCase();
    return (
      overrides.get(target) ??
      (
        {
          png: 'image/png',
          jpg: 'image/jpeg',
          jpeg: 'image/jpeg',
          gif: 'image/gif',
          bmp: 'image/bmp',
          tif: 'image/tiff',
          tiff: 'image/tiff',
          emf: 'image/x-emf',
          wmf: 'image/x-wmf',
          svg: 'image/svg+xml',
        } as Record<string, string>
      )[ext] ??
      ext
    );
  };

  const ignorable = attr(root, 'mc:Ignorable');
  for (const prefix of ignorable?.split(/\s+/).filter(Boolean) ?? []) {
    if (attr(root, `xmlns:${prefix}`) === undefined) problems.push(`xml: ${name} names ${prefix} in mc:Ignorable without declaring it`);
  }

  const bookmarks = new Map<string, number>();
  const ended = new Set<string>();
  const fields: ('begin' | 'separate')[] = [];
  walk(root, (el, parent) => {
    const model = CONTENT[el.name];
    if (model) {
      for (const child of el.children) {
        if (child.kind === 'element' && child.name.startsWith('w:') && !model.has(child.name))
          problems.push(`content: ${name} <${el.name}> may not hold <${child.name}>`);
      }
    }
    for (const [key, value] of el.attrs) {
      if (REL_ATTRS.has(key) && value && !relIds.has(value))
        problems.push(`rel-id: ${name} <${el.name}> names relationship ${value}, which the part does not have`);
    }
    switch (el.name) {
      case 'a:blip': {
        const embed = attr(el, 'r:embed');
        const type = embed ? typeOf(embed) : undefined;
        if (type && !RASTER.test(type))
          problems.push(`blip: ${name} a picture's main blip is ${type}; Word shows only raster or metafile main pictures`);
        break;
      }
      case 'asvg:svgBlip': {
        const embed = attr(el, 'r:embed');
        const type = embed ? typeOf(embed) : undefined;
        if (type && type !== 'image/svg+xml') problems.push(`blip: ${name} an svgBlip points at ${type}, not SVG`);
        break;
      }
      case 'wp:docPr': {
        const id = attr(el, 'id') ?? '';
        if (!/^\d+$/.test(id)) problems.push(`docpr-id: ${name} a drawing has the id "${id}", not a number`);
        else if (drawingIds.has(id)) problems.push(`docpr-id: drawing id ${id} is used in ${drawingIds.get(id)} and again in ${name}`);
        else drawingIds.set(id, name);
        break;
      }
      case 'w:bookmarkStart': {
        const id = attr(el, 'w:id') ?? '';
        bookmarks.set(id, (bookmarks.get(id) ?? 0) + 1);
        if (bookmarks.get(id) === 2) problems.push(`bookmark: ${name} bookmark id ${id} starts twice`);
        break;
      }
      case 'w:bookmarkEnd':
        ended.add(attr(el, 'w:id') ?? '');
        break;
      case 'w:fldChar': {
        const type = attr(el, 'w:fldCharType');
        if (type === 'begin') fields.push('begin');
        else if (type === 'separate') {
          if (fields.at(-1) !== 'begin') problems.push(`field: ${name} a field separator without its field's begin`);
          else fields[fields.length - 1] = 'separate';
        } else if (type === 'end') {
          if (!fields.length) problems.push(`field: ${name} a field end without its begin`);
          fields.pop();
        }
        break;
      }
      case 'w:tbl': {
        const rows = childElements(el, 'w:tr');
        if (!childElements(el, 'w:tblGrid').length) problems.push(`table: ${name} a table without its grid (w:tblGrid)`);
        if (!rows.length && !el.children.some((c) => c.kind === 'element' && (c.name === 'w:sdt' || c.name === 'w:customXml')))
          problems.push(`table: ${name} a table without rows`);
        break;
      }
      case 'w:tr':
        if (!el.children.some((c) => c.kind === 'element' && ['w:tc', 'w:sdt', 'w:customXml'].includes(c.name)))
          problems.push(`table: ${name} a row without cells`);
        break;
      case 'w:tc': {
        const blocks = el.children.filter(
          (c): c is XmlElement =>
            c.kind === 'element' &&
            c.name !== 'w:tcPr' &&
            !c.name.startsWith('w:bookmark') &&
            c.name !== 'w:permEnd' &&
            c.name !== 'w:proofErr',
        );
        if (blocks.at(-1)?.name !== 'w:p' && blocks.at(-1)?.name !== 'w:sdt' && blocks.at(-1)?.name !== 'w:customXml')
          problems.push(`table: ${name} a cell that does not end with a paragraph (${blocks.at(-1)?.name ?? 'empty'})`);
        break;
      }
      case 'w:p':
        if (parent && INLINE.has(parent.name)) problems.push(`story: ${name} a paragraph inside a paragraph`);
        break;
      case 'w:body': {
        const children = childElements(el);
        const at = children.findIndex((c) => c.name === 'w:sectPr');
        if (at >= 0 && at !== children.length - 1) problems.push(`story: ${name} the body's section properties are not its last child`);
        break;
      }
      default:
        if (
          STORIES.has(el.name) &&
          (parent === undefined || /^w:(footnotes|endnotes|comments)$/.test(parent.name)) &&
          !el.children.some((c) => c.kind === 'element' && ['w:p', 'w:tbl', 'w:sdt', 'w:customXml'].includes(c.name))
        ) {
          problems.push(`story: ${name} a <${el.name}> without a paragraph`);
        }
    }
    return undefined;
  });
  for (const id of bookmarks.keys()) if (!ended.has(id)) problems.push(`bookmark: ${name} bookmark id ${id} has no end`);
  if (fields.length) problems.push(`field: ${name} ${fields.length} field(s) never end`);
  problems.push(...schemaOrderProblems(root, name).map((p) => `order: ${p}`));
  return problems;
}

/**
 * The rules an output breaks that none of its inputs already broke (merged content inherits its
 * template's faults), the ECMA-376 schemas' among them where they are (helpers/ecma376.ts).
 */
export function newProblems(output: Uint8Array, inputs: Uint8Array[]): string[] {
  const inherited = new Set(inputs.flatMap((input) => checkedProblems(input)).map(rule));
  return checkedProblems(output).filter((problem) => !inherited.has(rule(problem)));
}

/** A Word rule by its kind; a schema fault by its message, wherever it stands (a merged record repeats its template's). */
const rule = (problem: string) =>
  problem.startsWith('schema: ') ? problem.replace(/^schema: [^:]+: /, 'schema: ') : problem.slice(0, problem.indexOf(':'));

const schemaChecked = new Map<string, string[]>(); // content digest -> schema faults
let skipSaid = false;

/** wordProblems and the ECMA-376 schema's faults ("schema: part: message"); a document is validated once. */
function checkedProblems(docx: Uint8Array): string[] {
  const problems = wordProblems(docx);
  if (ecma376Skip) {
    if (!skipSaid) process.stderr.write(`# the ECMA-376 check of DOCX outputs is skipped: ${ecma376Skip}\n`);
    skipSaid = true;
    return problems;
  }
  if (problems.some((p) => p.startsWith('package:') || p.startsWith('xml:'))) return problems;
  const digest = createHash('sha1').update(docx).digest('hex');
  let schema = schemaChecked.get(digest);
  if (!schema) schemaChecked.set(digest, (schema = ecma376Problems(docx).map((p) => `schema: ${p}`)));
  return [...problems, ...schema];
}

/** Throws when a merged document breaks a rule Word applies that its template did not already break. */
export function assertWordValid(output: Uint8Array, inputs: Uint8Array[], what = 'the output'): void {
  const problems = newProblems(output, inputs);
  if (problems.length) throw new Error(`${what} breaks rules Word applies:\n  ${problems.slice(0, 10).join('\n  ')}`);
}

/** CompiledTemplate.compile whose every merge is checked with assertWordValid (not a merge bound for the office, whose SVG pictures are meant). */
export function checkedCompile(bytes: Uint8Array, name?: string): CompiledTemplate {
  const template = CompiledTemplate.compile(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), name);
  const merge = template.merge.bind(template);
  template.merge = (...args: Parameters<CompiledTemplate['merge']>) => {
    const outputs = merge(...args);
    if (!args[3]?.officeBound) for (const output of outputs) assertWordValid(output, [bytes]);
    return outputs;
  };
  return template;
}

// ---- every DOCX a test receives over HTTP (test/helpers/http.ts) --------------------------------

const sent = new Map<string, Set<string>>(); // base64 prefix and length -> the rules the document sent already breaks

function docxIn(base64: unknown): Buffer | undefined {
  if (typeof base64 !== 'string' || !base64.startsWith('UEsDB')) return undefined;
  const bytes = Buffer.from(base64, 'base64');
  try {
    return 'word/document.xml' in unzipSync(bytes, { filter: (file) => file.name === 'word/document.xml' }) ? bytes : undefined;
  } catch {
    return undefined;
  }
}

function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) strings(item, out);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) strings(item, out);
  return out;
}

/** Notes the DOCX documents a request sends: faults they bring are not the service's. */
export function noteSentDocuments(body: unknown): void {
  for (const text of strings(body)) {
    const bytes = docxIn(text);
    if (bytes && !sent.has(text.slice(0, 64) + text.length))
      sent.set(text.slice(0, 64) + text.length, new Set(checkedProblems(bytes).map(rule)));
  }
}

/** The Word rules a DOCX answer breaks that no document the tests sent broke already. */
export function repliedDocumentProblems(json: unknown): string[] {
  const inherited = new Set([...sent.values()].flatMap((rules) => [...rules]));
  return strings(json).flatMap((text) => {
    const bytes = docxIn(text);
    return bytes ? checkedProblems(bytes).filter((problem) => !inherited.has(rule(problem))) : [];
  });
}
