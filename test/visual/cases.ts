/**
 * The real-world-like templates of the visual suite, with their data: each is merged, rendered and
 * compared with its approved image (visual.test.ts), and some are the samples newcomers start
 * from (samples/, written by scripts/samples.ts from these very cases).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { JsonObject } from '../../src/merge/scope.js';
import type { MergeOptions } from '../../src/merge/engine.js';
import { FIXTURES } from '../helpers/server.js';
import { readTx } from '../../src/formats/tx/read.js';
import { txToDocx } from '../../src/formats/tx/docx.js';
import { block, cell, chart, docx, field, mergefield, p, picture, row, run, table, txBarcode } from '../helpers/docx.js';
import { workbook } from '../../src/merge/charts.js';
import { OoxmlPackage } from '../../src/ooxml/package.js';

export interface Case {
  name: string;
  template: Buffer;
  records: JsonObject[];
  append: boolean;
  /** Merge settings besides the defaults and en-US (mergeHtml and the like). */
  options?: Partial<MergeOptions>;
  /** Text each page must show (a page total differs by a few pixels only). */
  pageTexts?: RegExp[];
}

const bold = '<w:b/>';

/** A label sheet: `columns` x `rows` cells of 70 x 37 mm (3969 x 2098 twips, the height exact), each a label ending with NEXT, across then down. */
function labelSheet(columns: number, rows: number): string {
  const label =
    '<w:tc><w:tcPr><w:tcW w:w="3969" w:type="dxa"/><w:tcMar><w:top w:w="170" w:type="dxa"/><w:left w:w="283" w:type="dxa"/></w:tcMar></w:tcPr>' +
    p(mergefield('name')) +
    p(mergefield('city')) +
    p(field('NEXT', '')) +
    '</w:tc>';
  const row = `<w:tr><w:trPr><w:trHeight w:val="2098" w:hRule="exact"/></w:trPr>${label.repeat(columns)}</w:tr>`;
  return (
    `<w:tbl><w:tblPr><w:tblW w:w="${3969 * columns}" w:type="dxa"/><w:tblLayout w:type="fixed"/><w:tblCellMar><w:left w:w="0" w:type="dxa"/><w:right w:w="0" w:type="dxa"/></w:tblCellMar></w:tblPr>` +
    `<w:tblGrid>${'<w:gridCol w:w="3969"/>'.repeat(columns)}</w:tblGrid>${row.repeat(rows)}</w:tbl>` +
    // The paragraph a table is followed by, a twip high (as Word's label sheets have it): it stays on the sheet.
    '<w:p><w:pPr><w:spacing w:before="0" w:after="0" w:line="20" w:lineRule="exact"/><w:rPr><w:sz w:val="2"/></w:rPr></w:pPr></w:p>'
  );
}

/** A face as an SVG data: URI: a background, a head and shoulders (a sample's "photo"). */
function avatar(background: string, skin: string): string {
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="160" height="160" viewBox="0 0 160 160">` +
    `<rect width="160" height="160" fill="${background}"/><circle cx="80" cy="62" r="30" fill="${skin}"/>` +
    `<path d="M24 160c4-34 28-52 56-52s52 18 56 52z" fill="${skin}"/></svg>`;
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}

const LABEL_PEOPLE = [
  ['Ann Lee', 'Berlin'],
  ['Bob Kay', 'Paris'],
  ['Cy Moss', 'Rome'],
  ['Di Park', 'Oslo'],
  ['Ed Ruiz', 'Lima'],
  ['Flo Tan', 'Madrid'],
  ['Gus Ode', 'Vienna'],
  ['Hal Ito', 'Kyoto'],
  ['Ida Bell', 'Dublin'],
  ['Jo Frey', 'Zurich'],
  ['Kim Roe', 'Seoul'],
  ['Lou Finn', 'Helsinki'],
  ['Mo Diaz', 'Quito'],
  ['Ned Ash', 'Leeds'],
  ['Ola Berg', 'Bergen'],
  ['Pat Vu', 'Hanoi'],
  ['Quin Ray', 'Perth'],
  ['Rae Ohm', 'Basel'],
  ['Sam Lin', 'Taipei'],
  ['Tia Cruz', 'Manila'],
  ['Uma Das', 'Pune'],
  ['Vic Holt', 'Boston'],
  ['Wes Bo', 'Accra'],
  ['Xia Wu', "Xi'an"],
  ['Yan Kos', 'Kraków'],
  ['Zoe Hart', 'Bristol'],
  ['Abe Nye', 'Cork'],
  ['Bea Lund', 'Malmö'],
  ['Cal Mori', 'Osaka'],
  ['Dot Kerr', 'Glasgow'],
] as const;
const tabs = '<w:pPr><w:tabs><w:tab w:val="left" w:pos="1440"/><w:tab w:val="right" w:pos="9000"/></w:tabs></w:pPr>';
const tracking = txBarcode('TrackingCode', 'rIdBc1', 'QRCode', { foreColor: '#1F3A93', widthPx: 110, heightPx: 110 });
const sales = chart('sales', 'rIdCh1', ['Revenue', 'Cost']);
const regional = chart('sales', 'rIdCh2', ['Revenue', 'Cost']);
/** The charts' design-time data, which the merge replaces. */
const designData = workbook('Sheet1', [
  ['', 'Revenue', 'Cost'],
  ['United States', '700', '1'],
]);
const order = txBarcode('OrderNo', 'rIdBc2', 'Code128', { showText: true, widthPx: 240, heightPx: 70 });
const packed = txBarcode('Code', 'rIdBc4', 'QRCode', { widthPx: 96, heightPx: 96 });
const parcel = txBarcode('Lines.Tracking', 'rIdBc3', 'Code128', { showText: true, widthPx: 125, heightPx: 45 });
/** A packing list's rows: a fixed height, the code's cell merged over three of them. */
const packingRow = '<w:trPr><w:trHeight w:val="520" w:hRule="exact"/></w:trPr>';
const packedCell = (restart: boolean, content = p()) =>
  `<w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/><w:vMerge${restart ? ' w:val="restart"' : ''}/></w:tcPr>${content}</w:tc>`;
/** The invoice both invoice cases merge, and its first record. */
const invoiceBody =
  p(run('ACME Corporation', bold)) +
  p(run('Invoice '), mergefield('number'), run(' for '), mergefield('customer')) +
  table(
    row(cell(p(run('Item', bold))), cell(p(run('Price', bold)))),
    block('items', row(cell(p(mergefield('name'))), cell(p(mergefield('price', '\\# "#,##0.00"'))))),
  ) +
  p(run('Total: '), mergefield('total', '\\# "#,##0.00"'));
const annInvoice = {
  number: 'INV-1',
  customer: 'Ann',
  total: 1716.18,
  items: [
    { name: 'Bolts', price: 1200 },
    { name: 'Nuts', price: 516.18 },
  ],
};
/**
 * The ReportingCloud PHP SDK's invoice template (.tx, BSD-3), read by formats/tx/, with the SDK's
 * data. Its DATE field becomes a merge field, so that the page does not change with the day.
 */
function sdkInvoice(): Buffer {
  const doc = readTx(fs.readFileSync(path.join(FIXTURES, 'resource', 'test_template.tx')));
  for (const f of doc.fields.values()) if (f.instruction[0] === 'DATE') f.instruction = ['MERGEFIELD', 'invoice_date'];
  return txToDocx(doc);
}
/**
 * The SDK invoice with "page X of Y" in the footer of the pages after the first (TX keeps its
 * address box in the first page's footer only: section flag 0x08, formats/tx/read.ts), numbering
 * restarting with each record.
 */
function sdkInvoiceFirstPage(): Buffer {
  const pkg = OoxmlPackage.read(sdkInvoice());
  const main = pkg.mainDocument();
  const footer = p(run('Invoice page '), field('PAGE', '1'), run(' of '), field('NUMPAGES', 'x'));
  const pages = pkg.text('word/footer1.xml')!;
  pkg.setText('word/footer1.xml', pages.replace(/(<w:ftr\b[^>]*>)[\s\S]*(<\/w:ftr>)/, `$1${footer}$2`));
  pkg.setText(main, pkg.text(main)!.replace(/(<w:pgMar\b[^>]*\/>)/, '$1<w:pgNumType w:start="1"/>'));
  if (!/<w:footerReference w:type="default" r:id="rId10"\/><w:footerReference w:type="first"/.test(pkg.text(main)!))
    throw new Error('the invoice no longer has a first page of its own');
  return pkg.toBuffer();
}

const sdkInvoiceData = {
  invoice_date: '20.12.2015',
  yourcompany_companyname: 'Text Control, LLC',
  yourcompany_zip: '28226',
  yourcompany_city: 'Charlotte',
  yourcompany_street: '6926 Shannon Willow Rd, Suite 400',
  yourcompany_phone: '704 544 7445',
  yourcompany_fax: '704-542-0936',
  yourcompany_url: 'www.textcontrol.com',
  yourcompany_email: 'sales@textcontrol.com',
  invoice_no: '778723',
  billto_name: 'Joey Montana',
  billto_companyname: 'Montana, LLC',
  billto_customerid: '123',
  billto_zip: '27878',
  billto_city: 'Charlotte',
  billto_street: '1 Washington Dr',
  billto_phone: '887 267 3356',
  payment_due: '20/1/2016',
  payment_terms: 'NET 30',
  salesperson_name: 'Mark Frontier',
  delivery_date: '20/1/2016',
  delivery_method: 'Ground',
  delivery_method_terms: 'NET 30',
  recipient_name: 'Joey Montana',
  recipient_companyname: 'Montana, LLC',
  recipient_zip: '27878',
  recipient_city: 'Charlotte',
  recipient_street: '1 Washington Dr',
  recipient_phone: '887 267 3356',
  total_discount: 532.6,
  total_sub: 7673.4,
  total_tax: 537.138,
  total: 8210.538,
  item: [
    { qty: 1, item_no: 1, item_description: 'Item description 1', item_unitprice: 2663, item_discount: 20, item_total: 2130.4 },
    { qty: 1, item_no: 2, item_description: 'Item description 2', item_unitprice: 5543, item_discount: 0, item_total: 5543 },
  ],
};

export const cases: Case[] = [
  {
    // A TX template: nested tables, alignment, number switches, a row block, a footer text box.
    name: 'sdk-invoice-tx',
    template: sdkInvoice(),
    records: [sdkInvoiceData],
    append: false,
  },
  {
    // The TX invoice appended over several pages: its first page with the address box, the others
    // counting the record's own pages ("page X of Y" per record, a section with two page styles).
    name: 'sdk-invoice-tx-appended',
    template: sdkInvoiceFirstPage(),
    records: [2, 48, 14].map((count, r) => ({
      ...sdkInvoiceData,
      invoice_no: `77872${r + 3}`,
      item: Array.from({ length: count }, (_, i) => ({
        qty: (i % 4) + 1,
        item_no: i + 1,
        item_description: `Item description ${i + 1}`,
        item_unitprice: 120 + i,
        item_discount: i % 3 === 0 ? 10 : 0,
        item_total: (120 + i) * ((i % 4) + 1),
      })),
    })),
    append: true,
    pageTexts: [
      /TEXT CONTROL, LLC/,
      /TEXT CONTROL, LLC/,
      /Invoice page 2 of 3/,
      /Invoice page 3 of 3/,
      /TEXT CONTROL, LLC/,
      /Invoice page 2 of 2/,
    ],
  },
  {
    // A packing list: each article's QR code in a cell merged over its three rows of fixed height;
    // no group is cut by a page break.
    name: 'packing-list',
    template: docx(
      p(run('Packing list ', bold), mergefield('order')) +
        table(
          row(cell(p(run('Code', bold))), cell(p(run('Article', bold)))),
          block(
            'lines',
            `<w:tr>${packingRow}${packedCell(true, p(packed.xml))}${cell(p(mergefield('article')))}</w:tr>`,
            `<w:tr>${packingRow}${packedCell(false)}${cell(p(run('Quantity: '), mergefield('qty')))}</w:tr>`,
            `<w:tr>${packingRow}${packedCell(false)}${cell(p(run('Bin '), mergefield('bin')))}</w:tr>`,
          ),
        ),
      {
        customXml: { rIdBc4: packed.customXml },
        footer: p(run('Page '), field('PAGE', '1'), run(' of '), field('NUMPAGES', 'x')),
        restartNumbering: true,
      },
    ),
    records: ['PO-881', 'PO-882'].map((order, r) => ({
      order,
      lines: Array.from({ length: r === 0 ? 15 : 4 }, (_, i) => ({
        article: `Article ${r + 1}-${i + 1}`,
        qty: i + 2,
        bin: `B-${String(i * 7 + 3).padStart(3, '0')}`,
        Code: `https://example.com/p/${order}/${i + 1}`,
      })),
    })),
    append: true,
    pageTexts: [/Page 1 of 2/, /Article 1-9[^]*Page 2 of 2/, /PO-882[^]*Page 1 of 1/],
  },
  {
    name: 'invoice',
    template: docx(invoiceBody + p(field('IF "total" > "2000" "Credit card payment is not accepted." "Call us: 704 544 7445"', 'x')), {
      footer: p(run('Page '), field('PAGE', '1'), run(' of '), field('NUMPAGES', '1')),
    }),
    records: [annInvoice],
    append: false,
  },
  {
    // A real A4 sheet of 3 x 8 labels, 70 x 37 mm (as Herma 4453 or Avery 3474): every label ends
    // with NEXT, across then down; 30 records fill one sheet and a quarter of the next.
    name: 'labels',
    template: docx(labelSheet(3, 8), { margins: [0, 0, 0, 0] }),
    records: LABEL_PEOPLE.map(([name, city]) => ({ name, city })),
    append: true,
  },
  {
    // TX barcode pictures (QR in a colour, Code 128 with its text) and Word's MERGEBARCODE.
    name: 'shipping-label',
    template: docx(
      p(run('Ship to ', bold), mergefield('name')) +
        p(mergefield('street')) +
        p(tracking.xml, run('  '), order.xml) +
        p(run('Article: '), field('MERGEBARCODE ean EAN13 \\t \\h 720')),
      { customXml: { rIdBc1: tracking.customXml, rIdBc2: order.customXml } },
    ),
    records: [
      {
        name: 'Ann Lee',
        street: '1 Main St, Springfield',
        TrackingCode: 'https://example.com/t/1Z999AA10123456784',
        OrderNo: 'ORD-2026-0001',
        ean: '400638133393',
      },
      {
        name: 'Bob Kay',
        street: '9 Elm Rd, Shelbyville',
        TrackingCode: 'https://example.com/t/1Z999AA10123456799',
        OrderNo: 'ORD-2026-0002',
        ean: '590123412345',
      },
    ],
    append: true,
  },
  {
    // A label sheet whose barcodes' data path runs through a list (TX's Sales_SalesOrderDetail.CarrierTrackingNumber):
    // each label shows its record's first row; rows holding a code are kept on one page.
    name: 'label-sheet-array',
    template: docx(
      table(
        row(
          cell(p(mergefield('name')), p(parcel.xml), p(field('NEXT', ''))),
          cell(p(mergefield('name')), p(parcel.xml), p(field('NEXT', ''))),
        ),
      ),
      { customXml: { rIdBc3: parcel.customXml } },
    ),
    records: ['Ann', 'Bob', 'Cy', 'Di'].map((name, i) => ({
      name,
      Lines: [{ Tracking: `1Z-${name.toUpperCase()}-00${i + 1}` }, { Tracking: 'not this one' }],
    })),
    append: true,
  },
  {
    // A report with nested blocks and a chart bound to the outer block by its name.
    name: 'sales-report',
    template: docx(
      p(run('Sales report ', bold), mergefield('region')) +
        block(
          'sales',
          p(
            run('Quarter ', bold),
            mergefield('quarter'),
            run(': revenue '),
            mergefield('Revenue', '\\# "#,##0"'),
            run(', cost '),
            mergefield('Cost', '\\# "#,##0"'),
          ),
          block('deals', p(run('    • '), mergefield('client'), run(' '), mergefield('amount', '\\# "#,##0"'))),
        ) +
        p(sales.xml),
      {
        charts: {
          rIdCh1: {
            xml: sales.chartXml,
            workbook: designData,
          },
        },
      },
    ),
    records: [
      {
        region: 'North',
        sales: [
          {
            quarter: 'Q1',
            Revenue: 1200,
            Cost: 800,
            deals: [
              { client: 'Ann', amount: 700 },
              { client: 'Bob', amount: 500 },
            ],
          },
          { quarter: 'Q2', Revenue: 1800, Cost: 900, deals: [{ client: 'Cy', amount: 1800 }] },
          { quarter: 'Q3', Revenue: 1500, Cost: 1400, deals: [] },
          { quarter: 'Q4', Revenue: 2100, Cost: 1200, deals: [{ client: 'Di', amount: 2100 }] },
        ],
      },
    ],
    append: false,
  },
  {
    // Appended invoices that restart page numbering (as TX's do): records of 1 and 2 pages, each "page X of Y" of its own.
    name: 'invoice-appended',
    template: docx(invoiceBody, {
      footer: p(run('Page '), field('PAGE', '1'), run(' of '), field('NUMPAGES', 'x')),
      restartNumbering: true,
    }),
    records: [
      annInvoice,
      {
        number: 'INV-2',
        customer: 'Bob',
        total: 5740,
        items: Array.from({ length: 70 }, (_, i) => ({ name: `Part ${i + 1}`, price: 82 })),
      },
    ],
    append: true,
  },
  {
    // TX's accruals report: tab stops in every paragraph's properties, the last one after a page break; no blank page between records.
    name: 'accruals-report',
    template: docx(
      p(run('Accruals report ', bold), mergefield('period')) +
        table(
          row(cell(p(run('Account', bold))), cell(p(run('Amount', bold)))),
          block('accruals', row(cell(p(mergefield('account'))), cell(p(mergefield('amount', '\\# "#,##0.00"'))))),
        ) +
        `<w:p>${tabs}${run('Total')}<w:r><w:tab/></w:r>${mergefield('total', '\\# "#,##0.00"')}</w:p>` +
        `<w:p>${tabs}<w:r><w:br w:type="page"/></w:r></w:p><w:p>${tabs}</w:p>`,
      { footer: p(run('Page '), field('PAGE', '1'), run(' of '), field('NUMPAGES', 'x')), restartNumbering: true },
    ),
    records: [
      {
        period: 'October 2026',
        total: 4200,
        accruals: [
          { account: '4100 Rent', amount: 3000 },
          { account: '4200 Power', amount: 1200 },
        ],
      },
      { period: 'November 2026', total: 950.5, accruals: [{ account: '4300 Water', amount: 950.5 }] },
    ],
    append: true,
  },
  {
    // A chart inside a repeated block: each region's chart shows that region's quarters.
    name: 'regional-charts',
    template: docx(p(run('Sales by region', bold)) + block('regions', p(run('Region ', bold), mergefield('region')), p(regional.xml)), {
      charts: {
        rIdCh2: {
          xml: regional.chartXml,
          workbook: designData,
        },
      },
    }),
    records: [
      {
        regions: [
          {
            region: 'North',
            sales: [
              { quarter: 'Q1', Revenue: 1200, Cost: 800 },
              { quarter: 'Q2', Revenue: 1800, Cost: 900 },
            ],
          },
          {
            region: 'South',
            sales: [
              { quarter: 'Q1', Revenue: 400, Cost: 300 },
              { quarter: 'Q2', Revenue: 600, Cost: 350 },
              { quarter: 'Q3', Revenue: 900, Cost: 500 },
            ],
          },
        ],
      },
    ],
    append: false,
  },
  {
    name: 'letter',
    template: docx(
      p(run('Dear '), mergefield('name'), run(',')) +
        p(run('thank you for your order of '), mergefield('date', '\\@ "d MMMM yyyy"'), run('.')) +
        p(run('Kind regards')),
      { header: p(run('ACME Corporation — '), mergefield('city')), footer: p(run('Reference '), mergefield('reference')) },
    ),
    records: [
      { name: 'Ann', date: '2026-11-23', city: 'Springfield', reference: 'R-1' },
      { name: 'Bob', date: '2026-01-02', city: 'Shelbyville', reference: 'R-2' },
    ],
    append: true,
  },
  {
    // HTML values (mergeHtml): a product sheet whose description comes from a web shop as HTML.
    name: 'html-notes',
    template: docx(
      p(run('Product sheet', '<w:b/><w:sz w:val="32"/>')) +
        p(run('Article '), mergefield('sku'), run(': '), mergefield('title')) +
        p(mergefield('description')) +
        p(run('Price: '), mergefield('price', '\\# "#,##0.00"'), run(' EUR')),
    ),
    records: [
      {
        sku: 'A-1001',
        title: 'Cordless drill',
        description:
          // An HTML value is a whole document, <html> to </html>, as ReportingCloud takes it.
          '<html><body><p>A <b>compact</b> drill for <i>wood</i>, metal and masonry.</p><ul><li>18 V battery, 2 speeds</li><li>Torque in 20 steps</li></ul><p>Delivered in a case with <span style="color:#c00000">two batteries</span>.</p></body></html>',
        price: 149.9,
      },
    ],
    append: false,
    options: { mergeHtml: true },
  },
  {
    // Pictures from the data: a placeholder picture named "photo" takes each record's image (here an
    // SVG as a data: URI; PNG, JPEG, GIF and BMP as Base64 too), scaled to the placeholder's width.
    name: 'badges',
    template: docx(
      p(run('VISITOR', '<w:b/><w:color w:val="1F4E79"/><w:sz w:val="28"/>')) +
        p(picture('photo', 160, 160)) +
        p(mergefield('name')) +
        p(mergefield('company')) +
        p(run('Host: '), mergefield('host')),
    ),
    records: [
      { name: 'Ann Lee', company: 'ACME Tools', host: 'R. Weber', photo: avatar('#2E75B6', '#F4B183') },
      { name: 'Bob Kay', company: 'Northwind', host: 'S. Ito', photo: avatar('#548235', '#C9A27E') },
    ],
    append: true,
  },
];
