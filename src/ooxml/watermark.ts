/**
 * A text watermark on every page, as Word's Design > Watermark writes one: a WordArt shape
 * (VML textpath, shape type 136) behind the text, in a header of every section. The rest of the
 * document stays byte for byte what it was, so a test run's DOCX is the real run's plus the mark.
 */
import { escapeAttr } from './xml.js';
import { OoxmlPackage } from './package.js';

const REL_HEADER = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/header';
const HEADER_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.header+xml';
const NS = {
  w: 'http://schemas.openxmlformats.org/wordprocessingml/2006/main',
  r: 'http://schemas.openxmlformats.org/officeDocument/2006/relationships',
  v: 'urn:schemas-microsoft-com:vml',
  o: 'urn:schemas-microsoft-com:office:office',
} as const;

type HeaderType = 'default' | 'first' | 'even';

/** What a test run shows on every page, in every format (the office draws it for the others). */
export const TEST_WATERMARK = 'TEST MODE';

/** Word's WordArt text shape type, declared once in each header that uses it. */
const SHAPE_TYPE =
  '<v:shapetype id="_x0000_t136" coordsize="21600,21600" o:spt="136" adj="10800" path="m@7,l@8,m@5,21600l@6,21600e">' +
  '<v:formulas><v:f eqn="sum #0 0 10800"/><v:f eqn="prod #0 2 1"/><v:f eqn="sum 21600 0 @1"/><v:f eqn="sum 0 0 @2"/><v:f eqn="sum 21600 0 @3"/>' +
  '<v:f eqn="if @0 @3 0"/><v:f eqn="if @0 21600 @1"/><v:f eqn="if @0 0 @2"/><v:f eqn="if @0 @4 21600"/><v:f eqn="mid @5 @6"/><v:f eqn="mid @8 @5"/>' +
  '<v:f eqn="mid @7 @8"/><v:f eqn="mid @6 @7"/><v:f eqn="sum @6 0 @5"/></v:formulas>' +
  '<v:path textpathok="t" o:connecttype="custom" o:connectlocs="@9,0;@10,10800;@11,21600;@12,10800" o:connectangles="270,180,90,0"/>' +
  '<v:textpath on="t" fitshape="t"/><v:handles><v:h position="#0,bottomRight" xrange="6629,14971"/></v:handles>' +
  '<o:lock v:ext="edit" text="t" shapetype="t"/></v:shapetype>';

function watermarkParagraph(text: string, n: number): string {
  const shape =
    `<v:shape id="PowerPlusWaterMarkObject${n}" o:spid="_x0000_s${2049 + n}" type="#_x0000_t136" ` +
    'style="position:absolute;margin-left:0;margin-top:0;width:468pt;height:117pt;rotation:315;z-index:-251657216;' +
    'mso-position-horizontal:center;mso-position-horizontal-relative:margin;mso-position-vertical:center;mso-position-vertical-relative:margin" ' +
    'o:allowincell="f" fillcolor="#c00000" stroked="f"><v:fill opacity=".5"/>' +
    `<v:textpath style="font-family:&quot;Liberation Sans&quot;;font-size:1pt" string="${escapeAttr(text)}"/></v:shape>`;
  return (
    '<w:sdt><w:sdtPr><w:docPartObj><w:docPartGallery w:val="Watermarks"/><w:docPartUnique/></w:docPartObj></w:sdtPr><w:sdtContent>' +
    `<w:p><w:pPr><w:spacing w:after="0"/></w:pPr><w:r><w:rPr><w:noProof/></w:rPr><w:pict>${SHAPE_TYPE}${shape}</w:pict></w:r></w:p>` +
    '</w:sdtContent></w:sdt>'
  );
}

/** Declares the namespaces the watermark uses on a part's root element, where missing. */
function withNamespaces(xml: string, tag: string): string {
  return xml.replace(new RegExp(`<${tag}\\b[^>]*?(/?)>`), (open, selfClosing: string) => {
    let out = open.slice(0, open.length - (selfClosing ? 2 : 1));
    for (const [prefix, uri] of Object.entries(NS)) if (!new RegExp(`\\sxmlns:${prefix}=`).test(out)) out += ` xmlns:${prefix}="${uri}"`;
    return `${out}${selfClosing ? '/>' : '>'}`;
  });
}

/** The mark as a line of text at the top of every header, for formats without shapes (TX). */
function markLine(text: string): string {
  return `<w:p><w:pPr><w:jc w:val="center"/></w:pPr><w:r><w:rPr><w:b/><w:color w:val="C00000"/><w:sz w:val="28"/></w:rPr><w:t xml:space="preserve">${escapeAttr(text)}</w:t></w:r></w:p>`;
}

/**
 * Puts `text` as a watermark on every page of every section of the document: a shape behind the
 * text, or (`line`) a line of text at the top of the header, for output that holds no shapes.
 */
export function addWatermark(pkg: OoxmlPackage, text: string, mainPart = 'word/document.xml', style: 'shape' | 'line' = 'shape'): void {
  let document = pkg.text(mainPart);
  if (document === undefined) return;
  const evenPages = /<w:evenAndOddHeaders\b(?![^>]*w:val="(?:false|0|off)")/.test(pkg.text('word/settings.xml') ?? '');
  const relationships = pkg.relationships(mainPart);
  const headerTargets = new Map(relationships.filter((r) => r.type === REL_HEADER && !r.external).map((r) => [r.id, r.target]));
  const used = new Set(relationships.map((r) => r.id));
  let created = 0;
  const newHeader = (): string => {
    let id: string;
    do id = `rIdDsWatermark${++created}`;
    while (used.has(id));
    used.add(id);
    let name: string;
    let n = created;
    do name = `word/header-watermark${n++}.xml`;
    while (pkg.has(name));
    pkg.setText(name, `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:hdr xmlns:w="${NS.w}" xmlns:r="${NS.r}"><w:p/></w:hdr>`);
    pkg.addContentTypeOverride(name, HEADER_TYPE);
    pkg.addRelationships(mainPart, [{ id, type: REL_HEADER, target: name.slice('word/'.length) }]);
    headerTargets.set(id, name.slice('word/'.length));
    return id;
  };

  // A body without its final section properties (a minimal DOCX) is one section on defaults: it
  // gets them, empty, so that its header can carry the mark.
  if (!/<w:sectPr\b[^>]*?(?:\/>|>[\s\S]*?<\/w:sectPr>)\s*<\/w:body>/.test(document))
    document = document.replace(/<\/w:body>/, '<w:sectPr/></w:body>');

  // Sections inherit the headers of the section before for the kinds they do not name: only a
  // kind that no section so far has needs a header of its own (it is then inherited onward).
  const shown = new Set<HeaderType>();
  document = document.replace(/<w:sectPr\b[^>]*?\/>|<w:sectPr\b[^>]*>[\s\S]*?<\/w:sectPr>/g, (sectPr) => {
    let out = sectPr.replace(/^<w:sectPr\b([^>]*?)\s*\/>$/, '<w:sectPr$1></w:sectPr>');
    const wanted: HeaderType[] = ['default'];
    if (/<w:titlePg\b(?![^>]*w:val="(?:false|0|off)")/.test(out)) wanted.push('first');
    if (evenPages) wanted.push('even');
    for (const type of wanted) {
      if (new RegExp(`<w:headerReference\\b[^>]*w:type="${type}"`).test(out)) shown.add(type);
      if (shown.has(type)) continue;
      out = out.replace(/^<w:sectPr\b[^>]*>/, (open) => `${open}<w:headerReference w:type="${type}" r:id="${newHeader()}"/>`);
      shown.add(type);
    }
    return out;
  });
  if (created > 0) pkg.setText(mainPart, withNamespaces(document, 'w:document'));

  // Every header any section shows gets the mark (a header shown by several sections, once).
  const referenced = new Set([...document.matchAll(/<w:headerReference\b[^>]*r:id="([^"]+)"/g)].map((m) => m[1]!));
  let n = 0;
  for (const id of referenced) {
    const target = headerTargets.get(id);
    if (!target) continue;
    const part = OoxmlPackage.resolve(mainPart, target);
    const xml = pkg.text(part);
    if (xml === undefined || xml.includes('PowerPlusWaterMarkObject')) continue;
    const marked = withNamespaces(xml, 'w:hdr')
      .replace(/(<w:hdr\b[^>]*?)\/>/, '$1></w:hdr>')
      .replace(/<w:hdr\b[^>]*>/, (open) => open + (style === 'line' ? markLine(text) : watermarkParagraph(text, ++n)));
    pkg.setText(part, marked);
  }
}
