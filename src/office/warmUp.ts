/**
 * The document a new office process converts before it takes work. A fresh office loads its
 * import filter, fonts and PDF writer on its first job: that job took 0.6-1.1 s longer than the
 * next (an 800-row table: load 1.03 s, then 0.49 s). Paid at start, no request waits for it.
 */
import { newDocx } from '../ooxml/newPackage.js';

const text = (s: string) => `<w:r><w:t xml:space="preserve">${s}</w:t></w:r>`;
const cell = (width: number, content: string, right = false) =>
  `<w:tc><w:tcPr><w:tcW w:w="${width}" w:type="dxa"/></w:tcPr><w:p>${right ? '<w:pPr><w:jc w:val="right"/></w:pPr>' : ''}${content}</w:p></w:tc>`;
const row = (cells: string[], header = false) => `<w:tr>${header ? '<w:trPr><w:tblHeader/></w:trPr>' : ''}${cells.join('')}</w:tr>`;

let letter: Buffer | undefined;

/** A two-page letter: styles, a bold heading, a table whose header row repeats, a footer with a page field. Built once. */
export function warmUpDocx(): Buffer {
  return (letter ??= buildLetter());
}

function buildLetter(): Buffer {
  const widths = [1800, 5400, 1800];
  const rows = Array.from({ length: 70 }, (_, i) =>
    row([
      cell(widths[0]!, text(`2026-01-${String((i % 28) + 1).padStart(2, '0')}`)),
      cell(widths[1]!, text(`Item ${i}`)),
      cell(widths[2]!, text((i * 7.31).toFixed(2)), true),
    ]),
  );
  const table =
    `<w:tbl><w:tblPr><w:tblBorders><w:insideH w:val="single" w:sz="4" w:space="0" w:color="auto"/></w:tblBorders></w:tblPr>` +
    `<w:tblGrid>${widths.map((w) => `<w:gridCol w:w="${w}"/>`).join('')}</w:tblGrid>` +
    row([cell(widths[0]!, text('Date')), cell(widths[1]!, text('Text')), cell(widths[2]!, text('Amount'), true)], true) +
    rows.join('') +
    '</w:tbl>';
  const body =
    `<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr>${text('Statement')}</w:p>` +
    `<w:p>${text('Dear customer, ')}<w:r><w:rPr><w:b/></w:rPr><w:t>thank you.</w:t></w:r></w:p>` +
    table +
    '<w:p/>' +
    '<w:sectPr><w:footerReference w:type="default" r:id="rFooter"/><w:pgSz w:w="11906" w:h="16838"/>' +
    '<w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="708" w:footer="708" w:gutter="0"/></w:sectPr>';
  const footer =
    `<w:p>${text('Page ')}<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> PAGE </w:instrText></w:r>` +
    '<w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>1</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>';
  const styles =
    `<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/><w:rPr><w:rFonts w:ascii="Liberation Sans" w:hAnsi="Liberation Sans"/><w:sz w:val="22"/></w:rPr></w:style>` +
    `<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/><w:rPr><w:b/><w:sz w:val="32"/></w:rPr></w:style>`;
  return newDocx(body, [
    { kind: 'styles', id: 'rStyles', content: styles },
    { kind: 'footer', id: 'rFooter', content: footer },
  ]);
}
