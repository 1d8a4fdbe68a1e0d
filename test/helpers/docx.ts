import { unzipSync, zipSync } from 'fflate';
import { parseXml } from '../../src/ooxml/xml.js';
import { schemaOrderProblems } from '../../src/ooxml/properties-order.js';
import { encodePng } from '../../src/util/png.js';

/** Builds small DOCX templates for tests, with fields and blocks written in a few words. */

const NS =
  'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" ' +
  'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" ' +
  'xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" ' +
  'xmlns:w14="http://schemas.microsoft.com/office/word/2010/wordml" mc:Ignorable="w14"';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export const run = (text: string, props = '') =>
  `<w:r>${props ? `<w:rPr>${props}</w:rPr>` : ''}<w:t xml:space="preserve">${esc(text)}</w:t></w:r>`;

/** A complex field with its instruction split over several runs, as Word writes them. */
export function field(instruction: string, result?: string, props = ''): string {
  const rPr = props ? `<w:rPr>${props}</w:rPr>` : '';
  const half = Math.ceil(instruction.length / 2);
  return (
    `<w:r>${rPr}<w:fldChar w:fldCharType="begin"/></w:r>` +
    `<w:r>${rPr}<w:instrText xml:space="preserve"> ${esc(instruction.slice(0, half))}</w:instrText></w:r>` +
    `<w:r>${rPr}<w:instrText xml:space="preserve">${esc(instruction.slice(half))} </w:instrText></w:r>` +
    `<w:r>${rPr}<w:fldChar w:fldCharType="separate"/></w:r>` +
    run(result ?? `«${instruction.split(/\s+/)[1] ?? ''}»`, props) +
    `<w:r>${rPr}<w:fldChar w:fldCharType="end"/></w:r>`
  );
}

/** A field whose instruction holds other fields: parts are text or nested field XML. */
export function nestedField(parts: string[], result = 'x'): string {
  const inner = parts
    .map((p) =>
      p.startsWith('<w:r>') || p.startsWith('<w:fldSimple') ? p : `<w:r><w:instrText xml:space="preserve">${esc(p)}</w:instrText></w:r>`,
    )
    .join('');
  return `<w:r><w:fldChar w:fldCharType="begin"/></w:r>${inner}<w:r><w:fldChar w:fldCharType="separate"/></w:r>${run(result)}<w:r><w:fldChar w:fldCharType="end"/></w:r>`;
}

export const simpleField = (instruction: string, result?: string) =>
  `<w:fldSimple w:instr=" ${esc(instruction).replace(/"/g, '&quot;')} ">${run(result ?? `«${instruction.split(/\s+/)[1] ?? ''}»`)}</w:fldSimple>`;

export const mergefield = (name: string, switches = '') => field(`MERGEFIELD ${name}${switches ? ` ${switches}` : ''}`, `«${name}»`);

export const p = (...content: string[]) => `<w:p>${content.join('')}</w:p>`;

let nextBookmark = 100;
/** Wraps paragraphs or rows in a txmb_ block bookmark. */
export function block(name: string, ...content: string[]): string {
  const id = nextBookmark++;
  const first = content[0] ?? '';
  const start = `<w:bookmarkStart w:id="${id}" w:name="txmb_${name}"/>`;
  const end = `<w:bookmarkEnd w:id="${id}"/>`;
  if (first.startsWith('<w:tr')) return start + content.join('') + end;
  // Bookmarks inside the first and last paragraph, as Word places them.
  const parts = [...content];
  parts[0] = parts[0]!.replace(/^<w:p>/, `<w:p>${start}`);
  parts[parts.length - 1] = parts[parts.length - 1]!.replace(/<\/w:p>$/, `${end}</w:p>`);
  return parts.join('');
}

export const cell = (...paragraphs: string[]) => `<w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/></w:tcPr>${paragraphs.join('')}</w:tc>`;
export const row = (...cells: string[]) => `<w:tr>${cells.join('')}</w:tr>`;
export const table = (...rows: string[]) =>
  `<w:tbl><w:tblPr><w:tblW w:w="0" w:type="auto"/></w:tblPr><w:tblGrid><w:gridCol w:w="2000"/><w:gridCol w:w="2000"/></w:tblGrid>${rows.join('')}</w:tbl>`;

const SECT =
  '<w:sectPr><w:pgSz w:w="11906" w:h="16838"/><w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="708" w:footer="708" w:gutter="0"/></w:sectPr>';

export function docx(
  body: string,
  options: {
    header?: string;
    footer?: string;
    styles?: string;
    numbering?: string;
    footnotes?: string;
    comments?: string;
    customXml?: Record<string, string>;
    charts?: Record<string, { xml: string; workbook?: Buffer }>;
    restartNumbering?: boolean;
    /** A different first page (w:titlePg), with its own header and footer when given. */
    titlePg?: boolean;
    firstHeader?: string;
    firstFooter?: string;
    /** The page's margins in twips (top, right, bottom, left), instead of an inch each. */
    margins?: [number, number, number, number];
  } = {},
): Buffer {
  const placeholder = body.includes('r:embed="rIdPh"');
  const rels: string[] = [];
  const overrides: string[] = [
    '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>',
  ];
  const files: Record<string, Uint8Array> = {};
  // Page numbers start at 1 in the section (TX writes this): each merged record is numbered on its own.
  let sect = options.restartNumbering ? SECT.replace(/(<w:pgMar[^>]*\/>)/, '$1<w:pgNumType w:start="1"/>') : SECT;
  if (options.margins) {
    const [top, right, bottom, left] = options.margins;
    sect = sect.replace(
      /w:top="\d+" w:right="\d+" w:bottom="\d+" w:left="\d+"/,
      `w:top="${top}" w:right="${right}" w:bottom="${bottom}" w:left="${left}"`,
    );
  }
  const references: string[] = [];
  for (const [kind, type, content, n] of [
    ['header', 'default', options.header, 1],
    ['footer', 'default', options.footer, 1],
    ['header', 'first', options.firstHeader, 2],
    ['footer', 'first', options.firstFooter, 2],
  ] as const) {
    if (!content) continue;
    const tag = kind === 'header' ? 'hdr' : 'ftr';
    const id = type === 'default' ? `r${kind}` : `r${kind}First`;
    files[`word/${kind}${n}.xml`] = Buffer.from(
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:${tag} ${NS}>${content}</w:${tag}>`,
    );
    rels.push(
      `<Relationship Id="${id}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/${kind}" Target="${kind}${n}.xml"/>`,
    );
    overrides.push(
      `<Override PartName="/word/${kind}${n}.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.${kind}+xml"/>`,
    );
    references.push(`<w:${kind}Reference w:type="${type}" r:id="${id}"/>`);
  }
  // Schema order: header and footer references first, titlePg after the page setup.
  sect = sect.replace('<w:sectPr>', `<w:sectPr>${references.join('')}`);
  if (options.titlePg) sect = sect.replace('</w:sectPr>', '<w:titlePg/></w:sectPr>');
  const extra: [string, string, string, string][] = [
    ['styles', 'w:styles', 'styles', options.styles ?? ''],
    ['numbering', 'w:numbering', 'numbering', options.numbering ?? ''],
    ['comments', 'w:comments', 'comments', options.comments ?? ''],
    [
      'footnotes',
      'w:footnotes',
      'footnotes',
      options.footnotes
        ? '<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote><w:footnote w:type="continuationSeparator" w:id="0"><w:p><w:r><w:continuationSeparator/></w:r></w:p></w:footnote>' +
          options.footnotes
        : '',
    ],
  ];
  for (const [name, tag, type, content] of extra) {
    if (!content) continue;
    files[`word/${name}.xml`] = Buffer.from(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?><${tag} ${NS}>${content}</${tag}>`);
    rels.push(
      `<Relationship Id="r${name}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/${type}" Target="${name}.xml"/>`,
    );
    overrides.push(
      `<Override PartName="/word/${name}.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.${name}+xml"/>`,
    );
  }
  Object.entries(options.charts ?? {}).forEach(([id, chart], i) => {
    files[`word/charts/chart${i + 1}.xml`] = Buffer.from(chart.xml);
    rels.push(
      `<Relationship Id="${id}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/chart" Target="charts/chart${i + 1}.xml"/>`,
    );
    overrides.push(
      `<Override PartName="/word/charts/chart${i + 1}.xml" ContentType="application/vnd.openxmlformats-officedocument.drawingml.chart+xml"/>`,
    );
    if (chart.workbook) {
      files[`word/embeddings/Workbook${i + 1}.xlsx`] = chart.workbook;
      files[`word/charts/_rels/chart${i + 1}.xml.rels`] = Buffer.from(
        `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rIdWb" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/package" Target="../embeddings/Workbook${i + 1}.xlsx"/></Relationships>`,
      );
      if (!overrides.some((o) => o.includes('Extension="xlsx"')))
        overrides.push('<Default Extension="xlsx" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"/>');
    }
  });
  Object.entries(options.customXml ?? {}).forEach(([id, xml], i) => {
    files[`customXml/item${i + 1}.xml`] = Buffer.from(xml);
    rels.push(
      `<Relationship Id="${id}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/customXml" Target="../customXml/item${i + 1}.xml"/>`,
    );
  });
  if (placeholder) {
    files['word/media/placeholder.png'] = png(10, 10, [220, 220, 220]);
    rels.push(
      '<Relationship Id="rIdPh" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="media/placeholder.png"/>',
    );
    overrides.push('<Default Extension="png" ContentType="image/png"/>');
  }
  files['[Content_Types].xml'] = Buffer.from(
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>${overrides.join('')}</Types>`,
  );
  files['_rels/.rels'] = Buffer.from(
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
  );
  files['word/_rels/document.xml.rels'] = Buffer.from(
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels.join('')}</Relationships>`,
  );
  files['word/document.xml'] = Buffer.from(
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document ${NS}><w:body>${body}${sect}</w:body></w:document>`,
  );
  return Buffer.from(zipSync(files));
}

/** The text of a part: paragraphs on lines, tabs and breaks as characters. */
export function partText(docxBytes: Uint8Array, part = 'word/document.xml'): string {
  const xml = Buffer.from(unzipSync(docxBytes)[part]!).toString('utf8');
  return xml
    .replace(/<w:tab\/>/g, '\t')
    .replace(/<w:br\/>/g, '\n')
    .replace(/<\/w:p>/g, '\n')
    .replace(/<w:instrText[^>]*>[\s\S]*?<\/w:instrText>/g, '')
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/\n+$/, '');
}

export function partXml(docxBytes: Uint8Array, part = 'word/document.xml'): string {
  return Buffer.from(unzipSync(docxBytes)[part]!).toString('utf8');
}

/** A picture placeholder named `name`, `widthPx` x `heightPx` at 96 dpi, showing media rIdPh. */
export function picture(name: string, widthPx: number, heightPx: number): string {
  const cx = widthPx * 9525;
  const cy = heightPx * 9525;
  return (
    `<w:r><w:drawing><wp:inline><wp:extent cx="${cx}" cy="${cy}"/><wp:docPr id="1" name="${name}"/>` +
    '<a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic><pic:nvPicPr><pic:cNvPr id="0" name="p"/><pic:cNvPicPr/></pic:nvPicPr>' +
    `<pic:blipFill><a:blip r:embed="rIdPh"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill><pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="${cx}" cy="${cy}"/></a:xfrm><a:prstGeom prst="rect"/></pic:spPr></pic:pic></a:graphicData></a:graphic>` +
    '</wp:inline></w:drawing></w:r>'
  );
}

/**
 * A TX Text Control barcode: a picture named after its merge field whose drawing carries
 * `tx:NetControl val="barcode"` pointing at a custom XML part that describes the symbol.
 * Returns the picture and the custom XML to pass as `docx(..., { customXml: { [relId]: xml } })`.
 */
export function txBarcode(
  name: string,
  relId: string,
  type: string,
  options: { widthPx?: number; heightPx?: number; foreColor?: string; backColor?: string; showText?: boolean; text?: string } = {},
): { xml: string; customXml: string } {
  const control = `<a:extLst><a:ext uri="{B1D3C5A0-7E3C-4C3B-9E8A-TXBARCODE}"><tx19:NetControl xmlns:tx19="http://schemas.textcontrol.com/2019/wordml" tx19:val="barcode" r:id="${relId}"/></a:ext></a:extLst>`;
  const xml = picture(name, options.widthPx ?? 120, options.heightPx ?? 120).replace(/(<wp:docPr [^>]*?)\/>/, `$1>${control}</wp:docPr>`);
  const customXml =
    `<?xml version="1.0" encoding="utf-8"?><BarcodeData_TXBarcode_3.0><BarcodeType>${type}</BarcodeType>` +
    `<ForeColor>${options.foreColor ?? '#000000'}</ForeColor><BackColor>${options.backColor ?? '#FFFFFF'}</BackColor>` +
    `<ShowText>${options.showText ? 'true' : 'false'}</ShowText><Size>100</Size><Text>${options.text ?? 'design time'}</Text></BarcodeData_TXBarcode_3.0>`;
  return { xml, customXml };
}

/**
 * A column chart named `name` (which binds it to the merge block of that name) with design-time
 * data, as Word or TX save one: the drawing for the body and the chart part for `docx(..., { charts })`.
 */
export function chart(
  name: string,
  relId: string,
  series: string[] = ['Sales'],
  design: { categories: string[]; values: number[][] } = { categories: ['United States', 'Europe', 'Asia'], values: [[700, 600, 500]] },
): { xml: string; chartXml: string } {
  const cx = 4572000;
  const cy = 2743200;
  const xml =
    `<w:r><w:drawing><wp:inline><wp:extent cx="${cx}" cy="${cy}"/><wp:docPr id="7" name="${name}"/><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/chart">` +
    `<c:chart xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" r:id="${relId}"/></a:graphicData></a:graphic></wp:inline></w:drawing></w:r>`;
  const n = design.categories.length;
  const col = (i: number) => String.fromCharCode(66 + i);
  const ser = series
    .map(
      (s, i) =>
        `<c:ser><c:idx val="${i}"/><c:order val="${i}"/><c:tx><c:strRef><c:f>Sheet1!$${col(i)}$1</c:f><c:strCache><c:ptCount val="1"/><c:pt idx="0"><c:v>${esc(s)}</c:v></c:pt></c:strCache></c:strRef></c:tx>` +
        `<c:spPr><a:solidFill><a:srgbClr val="${['4472C4', 'ED7D31', 'A5A5A5', 'FFC000'][i % 4]}"/></a:solidFill></c:spPr><c:invertIfNegative val="0"/>` +
        `<c:cat><c:strRef><c:f>Sheet1!$A$2:$A$${n + 1}</c:f><c:strCache><c:ptCount val="${n}"/>${design.categories.map((c, k) => `<c:pt idx="${k}"><c:v>${esc(c)}</c:v></c:pt>`).join('')}</c:strCache></c:strRef></c:cat>` +
        `<c:val><c:numRef><c:f>Sheet1!$${col(i)}$2:$${col(i)}$${n + 1}</c:f><c:numCache><c:formatCode>General</c:formatCode><c:ptCount val="${n}"/>${(design.values[i] ?? []).map((v, k) => `<c:pt idx="${k}"><c:v>${v}</c:v></c:pt>`).join('')}</c:numCache></c:numRef></c:val></c:ser>`,
    )
    .join('');
  const chartXml =
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><c:chartSpace xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">' +
    '<c:chart><c:autoTitleDeleted val="1"/><c:plotArea><c:layout/><c:barChart><c:barDir val="col"/><c:grouping val="clustered"/><c:varyColors val="0"/>' +
    `${ser}<c:axId val="111"/><c:axId val="222"/></c:barChart>` +
    '<c:catAx><c:axId val="111"/><c:scaling><c:orientation val="minMax"/></c:scaling><c:delete val="0"/><c:axPos val="b"/><c:crossAx val="222"/></c:catAx>' +
    '<c:valAx><c:axId val="222"/><c:scaling><c:orientation val="minMax"/></c:scaling><c:delete val="0"/><c:axPos val="l"/><c:majorGridlines/><c:crossAx val="111"/></c:valAx>' +
    '</c:plotArea><c:legend><c:legendPos val="b"/></c:legend><c:plotVisOnly val="1"/></c:chart></c:chartSpace>';
  return { xml, chartXml };
}

/** A real PNG of one colour. */
export function png(width: number, height: number, rgb: [number, number, number] = [200, 30, 30]): Buffer {
  const rows = Buffer.concat(
    Array.from({ length: height }, () => Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: width }, () => rgb).flat())])),
  );
  return encodePng(width, height, rows, 3);
}

/** A heading style with a colour, so two documents can disagree about Heading1. */
export const headingStyle = (color: string) =>
  `<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr><w:rPr><w:b/><w:color w:val="${color}"/><w:sz w:val="32"/></w:rPr></w:style>`;

/** One decimal list definition with numId 1. */
export const decimalList =
  '<w:abstractNum w:abstractNumId="0"><w:nsid w:val="1A2B3C4D"/><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/><w:pPr><w:ind w:left="720" w:hanging="360"/></w:pPr></w:lvl></w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>';

export const listItem = (text: string) =>
  `<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr></w:pPr>${run(text)}</w:p>`;

/** Schema-order problems of every XML part of a package (see src/ooxml/properties-order.ts). */
export function schemaOrderProblemsOf(docxBytes: Uint8Array): string[] {
  const files = unzipSync(docxBytes);
  return Object.entries(files)
    .filter(([name]) => name.startsWith('word/') && name.endsWith('.xml'))
    .flatMap(([name, data]) => schemaOrderProblems(parseXml(new TextDecoder().decode(data), name).root, name));
}

/** An OLE object as Word and TX Text Control write one into RTF, its picture as the result. */
export const rtfObject = (objectClass: string, name?: string, data = '0105000002000000') =>
  `{\\object\\objemb\\objw2000\\objh1000{\\*\\objclass ${objectClass}}${name ? `{\\*\\objname ${name}}` : ''}{\\*\\objdata ${data}}` +
  '{\\result {\\pict\\pngblip\\picw10\\pich10 89504e470d0a1a0a}}}';

/** A table with a grid that fits its rows: columns of `widths` twips, thin borders. */
export function gridTable(widths: number[], ...rows: string[]): string {
  const total = widths.reduce((a, b) => a + b, 0);
  const borders =
    '<w:tblBorders><w:top w:val="single" w:sz="4"/><w:bottom w:val="single" w:sz="4"/><w:insideH w:val="single" w:sz="4"/></w:tblBorders>';
  const grid = widths.map((w) => `<w:gridCol w:w="${w}"/>`).join('');
  return `<w:tbl><w:tblPr><w:tblW w:w="${total}" w:type="dxa"/>${borders}</w:tblPr><w:tblGrid>${grid}</w:tblGrid>${rows.join('')}</w:tbl>`;
}

/** A row of `gridTable`: one cell per width, each holding its paragraphs; a header row repeats on each page. */
export function gridRow(widths: number[], cells: string[], header = false): string {
  const tcs = cells.map((content, i) => `<w:tc><w:tcPr><w:tcW w:w="${widths[i]}" w:type="dxa"/></w:tcPr>${content}</w:tc>`).join('');
  return `<w:tr>${header ? '<w:trPr><w:tblHeader/></w:trPr>' : ''}${tcs}</w:tr>`;
}
