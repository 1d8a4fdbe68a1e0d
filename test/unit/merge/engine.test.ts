import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { zipSync, unzipSync } from 'fflate';
import { DEFAULT_MERGE_OPTIONS, partDescription, type MergeOptions } from '../../../src/merge/engine.js';
import type { JsonObject } from '../../../src/merge/scope.js';
import { InputError } from '../../../src/errors.js';
import { parseXml } from '../../../src/ooxml/xml.js';
import { withoutLatentStyles } from '../../../src/ooxml/styles.js';
import { schemaOrderProblems } from '../../../src/ooxml/properties-order.js';
import fs from 'node:fs';
import zlib from 'node:zlib';
import path from 'node:path';
import { fixture, ROOT } from '../../helpers/server.js';
import {
  block,
  cell,
  docx,
  field,
  mergefield,
  nestedField,
  p,
  partText,
  partXml,
  picture,
  row,
  run,
  schemaOrderProblemsOf,
  simpleField,
  table,
} from '../../helpers/docx.js';
import { checkedCompile } from '../../helpers/word-rules.js';

function merge(
  body: string,
  data: JsonObject | JsonObject[],
  options: Partial<MergeOptions> = {},
  extra: { header?: string; footer?: string } = {},
): Buffer[] {
  const template = checkedCompile(docx(body, extra));
  return template.merge(Array.isArray(data) ? data : [data], { ...DEFAULT_MERGE_OPTIONS, ...options }, false);
}
const text = (body: string, data: JsonObject | JsonObject[], options: Partial<MergeOptions> = {}) =>
  partText(merge(body, data, options)[0]!);

describe('merge engine: the worked example', () => {
  it('gives exactly the text of merge-semantics.md', () => {
    const body =
      p(mergefield('company'), run(', '), mergefield('address.street')) +
      block('contacts', p(mergefield('name'), run(' ('), mergefield('company'), run(')'))) +
      block(
        'orders',
        p(run('Order '), mergefield('id', '\\b "#"'), run(': ')),
        block(
          'articles',
          p(mergefield('qty'), run(' x '), mergefield('product.name'), run(' at '), mergefield('price', '\\# "$#,##0.00"')),
        ),
      );
    const data = {
      company: 'ACME',
      address: { street: '1 Main St' },
      contacts: [{ name: 'Tim' }, { name: 'Karl' }],
      orders: [{ id: 123, articles: [{ qty: 5, product: { name: 'Bolt' }, price: 1234.5 }] }],
    };
    assert.equal(text(body, data), 'ACME, 1 Main St\nTim (ACME)\nKarl (ACME)\nOrder #123: \n5 x Bolt at $1,234.50');
  });
});

describe('merge engine: fields and values', () => {
  it('fills complex fields split over runs, simple fields, dotted and case-insensitive names', () => {
    const body = p(
      mergefield('Name'),
      run('|'),
      simpleField('MERGEFIELD city'),
      run('|'),
      mergefield('a.b.c'),
      run('|'),
      mergefield('"Unit Price"'),
    );
    assert.equal(text(body, { name: 'Ann', CITY: 'Bonn', A: { B: { c: 1 } }, 'Unit Price': 9 }), 'Ann|Bonn|1|9');
  });

  it('renders values by type: numbers invariant, booleans, null and objects empty, line breaks and tabs', () => {
    const body = p(
      mergefield('n'),
      run('|'),
      mergefield('f'),
      run('|'),
      mergefield('t'),
      run('|'),
      mergefield('z'),
      run('|'),
      mergefield('o'),
      run('|'),
      mergefield('s'),
    );
    const out = merge(body, { n: 1234567.5, f: false, t: true, z: null, o: { x: 1 }, s: 'a\nb\tc' })[0]!;
    assert.equal(partText(out), '1234567.5|false|true|||a\nb\tc');
    assert.match(partXml(out), /<w:t xml:space="preserve">a<\/w:t><w:br\/><w:t xml:space="preserve">b<\/w:t><w:tab\/>/);
  });

  it('shows a value the same with or without MERGEFORMAT, and applies any other switch beside it', () => {
    const data = { n: 1234567.5, f: false, z: null, o: { x: 1 }, s: 'ab', d: '2026-03-01' };
    const fields = (extra: string) =>
      p(...Object.keys(data).flatMap((name) => [mergefield(name, extra), run('|')]), mergefield('missing', extra));
    assert.equal(text(fields('\\* MERGEFORMAT'), data), text(fields(''), data));
    assert.equal(text(fields('\\* CHARFORMAT'), data), '1234567.5|false|||ab|2026-03-01|');
    assert.equal(text(fields('\\* MERGEFORMAT \\* Upper \\b "<"'), { ...data, s: 'ab' }), '<1234567.5|<FALSE|||<AB|<2026-03-01|');
    assert.equal(text(p(mergefield('d', '\\@ "dd.MM.yyyy" \\* MERGEFORMAT')), data), '01.03.2026');
  });

  it('keeps the field result formatting on the merged value', () => {
    const body = p(field('MERGEFIELD name \\* MERGEFORMAT', '«name»', '<w:b/><w:color w:val="FF0000"/>'));
    assert.match(
      partXml(merge(body, { name: 'Ann' })[0]!),
      /<w:r><w:rPr><w:b\/><w:color w:val="FF0000"\/><\/w:rPr><w:t xml:space="preserve">Ann<\/w:t><\/w:r>/,
    );
  });

  it('applies \\b and \\f only to non-empty values, and the case switches', () => {
    const body = p(
      mergefield('a', '\\b "[" \\f "]"'),
      run('|'),
      mergefield('e', '\\b "[" \\f "]"'),
      run('|'),
      mergefield('u', '\\* Upper'),
      run('|'),
      mergefield('l', '\\* Lower'),
      run('|'),
      mergefield('fc', '\\* FirstCap'),
      run('|'),
      mergefield('c', '\\* Caps'),
    );
    assert.equal(
      text(body, { a: 'x', e: '', u: 'up', l: 'LOW', fc: 'first word', c: 'all the words' }),
      '[x]||UP|low|First word|All The Words',
    );
  });

  it('formats numbers with .NET pictures and standard formats', () => {
    const cases: [string, number | string, string][] = [
      ['$#,###.00', 2.4, '$2.40'],
      ['$#,###.00', 2400, '$2,400.00'],
      ['#,##0.00;(#,##0.00)', -5000, '(5,000.00)'],
      ['C2', 1234.5, '$1,234.50'],
      ['N0', 1234.5, '1,235'],
      ['P1', 0.256, '25.6%'],
      ['0000', 42, '0042'],
      ['#.##', '3.14159', '3.14'],
    ];
    for (const [picture, value, expected] of cases)
      assert.equal(text(p(mergefield('v', `\\# "${picture}"`)), { v: value }), expected, picture);
  });

  it('formats by culture: separators, currency, month and day names', () => {
    const body = p(
      mergefield('v', '\\# "C2"'),
      run('|'),
      mergefield('v', '\\# "#,##0.00"'),
      run('|'),
      mergefield('d', '\\@ "dddd, d. MMMM yyyy"'),
    );
    const data = { v: 1234.5, d: '2024-03-05' };
    assert.equal(text(body, data, { culture: 'en-US' }), '$1,234.50|1,234.50|Tuesday, 5. March 2024');
    assert.equal(text(body, data, { culture: 'de-DE' }), '1.234,50 €|1.234,50|Dienstag, 5. März 2024');
    assert.equal(text(body, data, { culture: 'fr-FR' }), '1 234,50 €|1 234,50|mardi, 5. mars 2024');
    assert.equal(text(body, data, { culture: 'ja-JP' }), '￥1,234.50|1,234.50|火曜日, 5. 3月 2024');
    assert.throws(() => text(body, data, { culture: 'xx-NOPE-123' }), InputError);
  });

  it('compares numbers as the culture writes them in IF (a nested field with a number picture), and gives a value that shows as zero the zero section', () => {
    const big = p(nestedField(['IF ', field('MERGEFIELD total \\# "#,##0.00"'), ' > 1000 "big" "small"']));
    assert.equal(text(big, { total: 1234.5 }, { culture: 'de-DE' }), 'big', '1.234,50 > 1000');
    assert.equal(text(big, { total: 999.5 }, { culture: 'de-DE' }), 'small', '999,50 > 1000');
    assert.equal(text(big, { total: 1234.5 }, { culture: 'en-US' }), 'big', '1,234.50 > 1000');
    assert.equal(text(big, { total: 1234.5 }, { culture: 'fr-FR' }), 'big', '1 234,50 > 1000');
    const zero = p(mergefield('v', '\\# "0.00;(0.00);zero"'));
    assert.equal(text(zero, { v: -0.001 }), 'zero');
    assert.equal(text(zero, { v: 0.004 }), 'zero');
    assert.equal(text(zero, { v: -0.006 }), '(0.01)');
    assert.equal(text(zero, { v: 0 }), 'zero');
  });

  it('formats dates with .NET pictures, parsing ISO and the culture short date', () => {
    const body = p(
      mergefield('d', '\\@ "dd.MM.yyyy"'),
      run('|'),
      mergefield('d', '\\@ "MM-dd-yy"'),
      run('|'),
      mergefield('t', '\\@ "h:mm tt"'),
      run('|'),
      mergefield('t', '\\@ "HH:mm"'),
      run('|'),
      mergefield('x', '\\@ "dd.MM.yyyy"'),
    );
    assert.equal(text(body, { d: '2024-03-05', t: '2024-03-05T14:07:00Z', x: 'soon' }), '05.03.2024|03-05-24|2:07 PM|14:07|soon');
    assert.equal(text(p(mergefield('d', '\\@ "yyyy-MM-dd"')), { d: '05.03.2024' }, { culture: 'de-DE' }), '2024-03-05');
  });

  it('removes empty fields, or keeps them as they were', () => {
    const body = p(run('Fax: '), mergefield('fax'), run('|'), mergefield('empty'));
    assert.equal(text(body, { empty: '' }), 'Fax: |');
    const kept = merge(body, { empty: '' }, { removeEmptyFields: false })[0]!;
    assert.equal(partText(kept), 'Fax: «fax»|');
    assert.match(partXml(kept), /<w:fldChar w:fldCharType="begin"\/>/);
  });

  it('removes lines that held only empty fields when asked', () => {
    const body = p(mergefield('a')) + p(mergefield('b'), run(' '), mergefield('c')) + p(run('Literal '), mergefield('b')) + p(run('end'));
    assert.equal(text(body, { a: 'A' }, { removeEmptyLines: true }), 'A\nLiteral \nend');
    assert.equal(text(body, { a: 'A' }, { removeEmptyLines: false }), 'A\n \nLiteral \nend');
  });

  it('keeps fields that are not merge fields for the office to update', () => {
    const out = merge(p(run('Page '), field('PAGE', '1')), {})[0]!;
    assert.match(partXml(out), /<w:instrText[^>]*> PA<\/w:instrText>/);
    assert.equal(partText(out), 'Page 1');
  });

  it('fills fields in text boxes, in both branches of mc:AlternateContent', () => {
    const box = (inner: string) => `<w:txbxContent>${p(inner)}</w:txbxContent>`;
    const body = p(
      '<w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><wps:txbx xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape">' +
        box(mergefield('boxed')) +
        '</wps:txbx></w:drawing></mc:Choice><mc:Fallback><w:pict><v:textbox xmlns:v="urn:schemas-microsoft-com:vml">' +
        box(mergefield('boxed')) +
        '</v:textbox></w:pict></mc:Fallback></mc:AlternateContent></w:r>',
    );
    const xml = partXml(merge(body, { boxed: 'In the box' })[0]!);
    assert.equal((xml.match(/In the box/g) ?? []).length, 2);
    assert.ok(!xml.includes('«boxed»'));
  });

  it('fills fields in headers and footers', () => {
    const out = merge(
      p(run('body')),
      { company: 'ACME', page: 'x' },
      {},
      { header: p(mergefield('company')), footer: p(run('© '), mergefield('company')) },
    )[0]!;
    assert.equal(partText(out, 'word/header1.xml'), 'ACME');
    assert.equal(partText(out, 'word/footer1.xml'), '© ACME');
  });
});

describe('merge engine: IF and DATE', () => {
  const ifField = (left: string, op: string, right: string) =>
    nestedField(['IF ', field(`MERGEFIELD ${left}`), ` ${op} ${right} "yes" "no"`]);

  it('compares numbers numerically and strings exactly, with wildcards', () => {
    assert.equal(text(p(ifField('n', '>', '9')), { n: 10 }), 'yes');
    assert.equal(text(p(ifField('n', '>', '9')), { n: 9 }), 'no');
    assert.equal(text(p(ifField('n', '=', '10.0')), { n: '10' }), 'yes');
    assert.equal(text(p(ifField('s', '=', '"Berlin"')), { s: 'Berlin' }), 'yes');
    assert.equal(text(p(ifField('s', '=', '"berlin"')), { s: 'Berlin' }), 'no');
    assert.equal(text(p(ifField('s', '=', '"B*n"')), { s: 'Berlin' }), 'yes');
    assert.equal(text(p(ifField('s', '<>', '"Ber?in"')), { s: 'Berlin' }), 'no');
    assert.equal(text(p(ifField('s', '<', '"C"')), { s: 'Berlin' }), 'yes');
  });

  it('reads a quoted first operand that names a field as that field (as TX Text Control writes it), with every operator', () => {
    const tx = p(field('IF "TotalDue" > "2000" "Credit card payment is not accepted." "Call us: 704 544 7445"', 'x'));
    assert.equal(text(tx, { TotalDue: 1716.18 }), 'Call us: 704 544 7445');
    assert.equal(text(tx, { TotalDue: 2500 }), 'Credit card payment is not accepted.');
    const country = p(field('IF "country" = "Germany" "yes" "no"', 'x'));
    assert.equal(text(country, { country: 'Germany' }), 'yes');
    assert.equal(text(country, { country: 'France' }), 'no');
    assert.equal(text(country, {}), 'no', 'no such field: the name itself is compared');
    const cases: [string, number, string][] = [
      ['=', 5, 'yes'],
      ['<>', 5, 'no'],
      ['<', 4, 'yes'],
      ['>', 4, 'no'],
      ['<=', 5, 'yes'],
      ['>=', 6, 'yes'],
      ['>=', 4, 'no'],
    ];
    for (const [op, value, expected] of cases)
      assert.equal(text(p(field(`IF "n" ${op} "5" "yes" "no"`, 'x')), { n: value }), expected, `${value} ${op} 5`);
    assert.equal(text(p(field('IF "city" = "Ber*" "yes" "no"', 'x')), { city: 'Berlin' }), 'yes', 'wildcards in the second operand');
    assert.equal(text(p(field('IF "10" > "9" "yes" "no"', 'x')), {}), 'yes', 'numbers compare as numbers');
  });

  it('takes bare field names and texts with nested fields', () => {
    const body = p(nestedField(['IF country = "DE" "Hallo ', field('MERGEFIELD name'), '" "Hello ', field('MERGEFIELD name'), '"']));
    assert.equal(text(body, { country: 'DE', name: 'Ann' }), 'Hallo Ann');
    assert.equal(text(body, { country: 'US', name: 'Ann' }), 'Hello Ann');
  });

  it("reads simple fields inside a complex field's instruction, as Word writes them (a real template)", () => {
    const body = p(nestedField(['IF ', simpleField('MERGEFIELD x'), ' = "two" "yes" "no"']));
    assert.equal(text(body, { x: 'two' }), 'yes');
    assert.equal(text(body, { x: 'three' }), 'no');
    const real = checkedCompile(
      fs.readFileSync(path.join(ROOT, 'test/fixtures/real-templates/iulica+docx-mailmerge/tests/test_nested_if_inside.docx')),
    );
    const results = real
      .merge([{ fieldname: 'two' }, { fieldname: 'one' }, { fieldname: 'three' }], DEFAULT_MERGE_OPTIONS, false)
      .map((d) => partText(d).trim());
    assert.deepEqual(results, ['two', '- one -', 'more: three']);
  });

  it('NEXT moves to the next record within the same document (label sheets), NEXTIF when its condition holds', () => {
    const labels = checkedCompile(docx(p(mergefield('name')) + p(field('NEXT', '')) + p(mergefield('name'))));
    const docs = labels.merge([{ name: 'A' }, { name: 'B' }, { name: 'C' }], DEFAULT_MERGE_OPTIONS, false);
    assert.deepEqual(
      docs.map((d) => partText(d)),
      ['A\n\nB', 'C'],
    );
    const conditional = checkedCompile(
      docx(p(mergefield('name')) + p(nestedField(['NEXTIF ', field('MERGEFIELD skip'), ' = "yes"'], '')) + p(mergefield('name'))),
    );
    const out = conditional.merge([{ name: 'A', skip: 'yes' }, { name: 'B', skip: 'no' }, { name: 'C' }], DEFAULT_MERGE_OPTIONS, false);
    assert.deepEqual(
      out.map((d) => partText(d)),
      ['A\n\nB', 'C\n\nC'],
    );
  });

  it('loses no record when every label ends with NEXT, the last one included', () => {
    const sheet = checkedCompile(docx(p(mergefield('name'), field('NEXT', '')) + p(mergefield('name'), field('NEXT', ''))));
    const records = ['A', 'B', 'C', 'D', 'E'].map((name) => ({ name }));
    assert.deepEqual(
      sheet.merge(records, DEFAULT_MERGE_OPTIONS, false).map((d) => partText(d)),
      ['A\nB', 'C\nD', 'E'],
    );
  });

  it("NEXT inside a block moves to the block's next row, not to the next record", () => {
    const sheet = checkedCompile(
      docx(
        p(mergefield('title')) +
          block('people', p(mergefield('name'), run(' | '), field('NEXT', ''), mergefield('name'), run(' '), mergefield('title'))) +
          p(run('end '), mergefield('title')),
      ),
    );
    const docs = sheet.merge(
      [
        { title: 'T1', people: [{ name: 'A' }, { name: 'B' }, { name: 'C' }] },
        { title: 'T2', people: [{ name: 'D' }] },
      ],
      DEFAULT_MERGE_OPTIONS,
      false,
    );
    assert.deepEqual(
      docs.map((d) => partText(d)),
      ['T1\nA | B T1\nC |  T1\nend T1', 'T2\nD |  T2\nend T2'],
    );
  });

  it('refuses broken field instructions, naming the field and the part', () => {
    assert.throws(
      () => checkedCompile(docx(p(run('x')) + p(field('MERGEFIELD "unclosed', '«x»')))),
      (e: Error) => e instanceof InputError && /field 1 of the body.*unclosed quote/.test(e.message),
    );
    assert.throws(() => checkedCompile(docx(p(mergefield('ok')) + p(field('MERGEFIELD', '«»')))), /field 2 of the body.*no field name/);
    assert.throws(() => checkedCompile(docx(p(field('IF x', '?')))), /needs a comparison/);
  });

  it('evaluates DATE with a picture', () => {
    const year = String(new Date().getFullYear());
    assert.equal(text(p(field('DATE \\@ "yyyy"', '2000')), {}), year);
  });

  it('computes = formulas over merged values: arithmetic, comparisons, Word’s functions, pictures, cultures', () => {
    const formula = (...parts: string[]) => p(nestedField(parts, '0'));
    const qty = field('MERGEFIELD qty');
    const price = field('MERGEFIELD price');
    const rows = table(block('items', row(cell(formula('= ', qty, ' * ', price, ' \\# "#,##0.00"')))));
    assert.equal(
      text(rows, {
        items: [
          { qty: 3, price: 1.5 },
          { qty: 1000, price: '2.25' },
        ],
      }),
      '4.50\n2,250.00',
    );
    const cases: [string[], string][] = [
      [['=2+3*4'], '14'],
      [['= (2 + 3) * 4 - 2 ^ 3'], '12'],
      [['= 50% * 10'], '5'],
      [['= ROUND(', price, ' / 3, 2)'], '0.83'],
      [['= IF(', qty, ' > 2, 100, 200)'], '100'],
      [['= MAX(1, ', qty, ', 2) + MIN(4; 5) + SUM(1,2,3) + ABS(-2) + INT(2.7) + MOD(7, 3) + SIGN(-5)'], '17'],
      [['= AND(1, 0) + OR(1, 0) + NOT(0) + (', qty, ' = 3) + (2 <> 2) + TRUE - FALSE'], '4'],
      [['= 10 / 4'], '2.5'],
      [['= 1234.5 * 1.19 \\# "#,##0.00"'], '1,469.06'],
      [['= -', price], '-2.5'],
    ];
    for (const [parts, expected] of cases) assert.equal(text(formula(...parts), { qty: 3, price: 2.5 }), expected, parts.join(''));
    // The culture's numbers in and out: a nested field with a picture, and the result's decimal comma.
    const de = formula('= ', field('MERGEFIELD n \\# "#,##0.00"'), ' / 2');
    assert.equal(text(de, { n: 1234.5 }, { culture: 'de-DE' }), '617,25');
    // Hostile formulas end in time and keep the field: nesting past 50, 3,000 tokens, an overflow.
    for (const hostile of [
      '= ' + '('.repeat(5000) + '1' + ')'.repeat(5000),
      '= ' + '1+'.repeat(3000) + '1',
      '= 10^400',
      '= ' + '-'.repeat(5000) + '1',
    ])
      assert.match(partXml(merge(formula(hostile), {})[0]!), /<w:instrText/, hostile.slice(0, 20));
    // What a merge cannot read (a table cell, a bookmark, a division by zero, an empty value) stays as it was.
    for (const parts of [['= SUM(ABOVE)'], ['= A1 * 2'], ['= total * 2'], ['= 1 / 0'], ['= ', field('MERGEFIELD missing'), ' + 1']]) {
      const out = merge(formula(...parts), {})[0]!;
      assert.match(partXml(out), /<w:instrText/, parts.join(''));
      assert.match(partText(out), /0$/, 'its last result');
    }
  });
});

describe('merge engine: blocks', () => {
  it('repeats table rows per element and removes an empty table entirely', () => {
    const body =
      table(row(cell(p(run('Item'))), cell(p(run('Qty')))), block('items', row(cell(p(mergefield('name'))), cell(p(mergefield('qty')))))) +
      p(run('after'));
    assert.equal(
      text(body, {
        items: [
          { name: 'A', qty: 1 },
          { name: 'B', qty: 2 },
        ],
      }),
      'Item\nQty\nA\n1\nB\n2\nafter',
    );
    const only = table(block('items', row(cell(p(mergefield('name'))), cell(p(mergefield('qty')))))) + p(run('after'));
    const out = merge(only, { items: [] })[0]!;
    assert.equal(partText(out), 'after');
    assert.ok(!partXml(out).includes('<w:tbl>'), 'the table without rows is gone');
  });

  it('nests blocks three levels deep with fallback to enclosing rows', () => {
    const body = block(
      'a',
      p(run('A:'), mergefield('n')),
      block(
        'b',
        p(run(' B:'), mergefield('n'), run('/'), mergefield('top')),
        block('c', p(run('  C:'), mergefield('n'), run('<'), mergefield('bn'), run('<'), mergefield('an'))),
      ),
    );
    const data = {
      top: 'T',
      a: [
        { n: 1, an: 'a1', b: [{ n: 11, bn: 'b11', c: [{ n: 111 }, { n: 112 }] }] },
        { n: 2, an: 'a2', b: [] },
      ],
    };
    assert.equal(text(body, data), 'A:1\n B:11/T\n  C:111<b11<a1\n  C:112<b11<a1\nA:2');
  });

  it('empty blocks: removed, or kept once with empty fields', () => {
    const body = p(run('before')) + block('list', p(run('- '), mergefield('x'))) + p(run('after'));
    for (const value of [undefined, null, [], {}]) {
      const data: JsonObject = value === undefined ? {} : { list: value as JsonObject };
      assert.equal(text(body, data), 'before\nafter', JSON.stringify(value));
    }
    assert.equal(text(body, { x: 'outer' }, { removeEmptyBlocks: false }), 'before\n- \nafter');
  });

  it('renders an object as a block once (a conditional section)', () => {
    const body = block('address', p(mergefield('street'))) + p(run('end'));
    assert.equal(text(body, { address: { street: 'Main St' } }), 'Main St\nend');
  });

  it('accepts blockstart_/blockend_ bookmarks and TableStart:/TableEnd: regions', () => {
    const pair =
      p('<w:bookmarkStart w:id="1" w:name="blockstart_rows"/><w:bookmarkEnd w:id="1"/>', mergefield('v')) +
      p(mergefield('w'), '<w:bookmarkStart w:id="2" w:name="blockend_rows"/><w:bookmarkEnd w:id="2"/>');
    assert.equal(
      text(pair, {
        rows: [
          { v: 1, w: 2 },
          { v: 3, w: 4 },
        ],
      }),
      '1\n2\n3\n4',
    );
    const region = table(
      row(cell(p(mergefield('TableStart:lines'), mergefield('name'))), cell(p(mergefield('qty'), mergefield('TableEnd:lines')))),
    );
    assert.equal(
      text(region, {
        lines: [
          { name: 'a', qty: 1 },
          { name: 'b', qty: 2 },
        ],
      }),
      'a\n1\nb\n2',
    );
  });

  it('keeps ids unique when blocks repeat bookmarks and drawings', () => {
    const body = block('r', p('<w:bookmarkStart w:id="7" w:name="inner"/>', mergefield('v'), '<w:bookmarkEnd w:id="7"/>'));
    const xml = partXml(merge(body, { r: [{ v: 1 }, { v: 2 }, { v: 3 }] })[0]!);
    const ids = [...xml.matchAll(/<w:bookmarkStart w:id="(\d+)" w:name="([^"]+)"/g)];
    assert.equal(ids.length, 3);
    assert.equal(new Set(ids.map((m) => m[1])).size, 3);
    assert.equal(new Set(ids.map((m) => m[2])).size, 3);
    assert.ok(!xml.includes('txmb_'), 'block bookmarks are not repeated');
    // Paragraph ids and drawings in a block whose only other bookmarks mark the block.
    const drawn = block(
      'r',
      p(mergefield('v'), picture('logo', 10, 10)),
      `<w:p w14:paraId="1A2B3C4D" w14:textId="77777777">${run('row')}</w:p>`,
    );
    const repeated = partXml(merge(drawn, { r: [{ v: 1 }, { v: 2 }, { v: 3 }] })[0]!);
    const paraIds = [...repeated.matchAll(/w14:paraId="([0-9A-F]+)"/g)].map((m) => m[1]);
    const drawings = [...repeated.matchAll(/<(?:wp:docPr|pic:cNvPr) id="(\d+)"/g)].map((m) => m[1]);
    assert.equal(new Set(paraIds).size, 3, paraIds.join(' '));
    assert.equal(drawings.length, 6);
    assert.equal(new Set(drawings).size, 6, drawings.join(' '));
    // A field left for the office keeps its result as it was, a picture in it too: repeated, it is numbered.
    const shown =
      '<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> SEQ Item </w:instrText></w:r>' +
      `<w:r><w:fldChar w:fldCharType="separate"/></w:r>${picture('item', 10, 10)}<w:r><w:fldChar w:fldCharType="end"/></w:r>`;
    const kept = partXml(merge(block('r', p(mergefield('v'), shown)), { r: [{ v: 1 }, { v: 2 }] })[0]!);
    const keptIds = [...kept.matchAll(/<(?:wp:docPr|pic:cNvPr) id="(\d+)"/g)].map((m) => m[1]);
    assert.deepEqual(keptIds, ['1', '2', '3', '4']);
  });

  it('keeps tracked changes and content controls unique when blocks repeat them', () => {
    const body = block(
      'r',
      p('<w:ins w:id="3" w:author="A" w:date="2024-01-01T00:00:00Z">', mergefield('v'), '</w:ins>'),
      p('<w:sdt><w:sdtPr><w:id w:val="9"/></w:sdtPr><w:sdtContent>', run('box'), '</w:sdtContent></w:sdt>'),
    );
    const xml = partXml(merge(body, { r: [{ v: 1 }, { v: 2 }, { v: 3 }] })[0]!);
    const changes = [...xml.matchAll(/<w:ins w:id="(\d+)"/g)].map((m) => m[1]);
    const controls = [...xml.matchAll(/<w:id w:val="(\d+)"\/>/g)].map((m) => m[1]);
    assert.equal(new Set(changes).size, 3, changes.join(' '));
    assert.equal(new Set(controls).size, 3, controls.join(' '));
  });

  it('refuses unbalanced block bookmarks with a message naming the block', () => {
    const body = p('<w:bookmarkStart w:id="5" w:name="txmb_orphan"/>', run('x'));
    assert.throws(
      () => checkedCompile(docx(body)),
      (e: Error) => e instanceof InputError && /orphan/.test(e.message),
    );
    const region = p(mergefield('TableStart:lonely'));
    assert.throws(() => checkedCompile(docx(region)), /TableEnd:lonely/);
  });
});

describe('merge engine: documents', () => {
  it('deflates a part that came out as the last merge made it once, not once per document', () => {
    const template = checkedCompile(
      docx(p(mergefield('a')), { header: p(run('Letterhead')), footer: p(run('Page footer')), styles: '<w:docDefaults/>' }),
    );
    const deflate = zlib.deflateRawSync;
    let deflated: string[] = [];
    (zlib as { deflateRawSync: typeof deflate }).deflateRawSync = ((bytes: Buffer, options: zlib.ZlibOptions) => {
      deflated.push(Buffer.from(bytes).toString('utf8').slice(-40));
      return deflate(bytes, options);
    }) as typeof deflate;
    try {
      for (const officeBound of [false, true]) {
        const first = template.merge([{ a: 'Ann' }], DEFAULT_MERGE_OPTIONS, false, { officeBound })[0]!;
        deflated = [];
        const second = template.merge([{ a: 'Bob' }], DEFAULT_MERGE_OPTIONS, false, { officeBound })[0]!;
        // The body differs; the header, the footer (and the office's styles) are the last merge's bytes.
        assert.equal(deflated.length, 1, `${officeBound ? 'office' : 'DOCX'}: ${deflated.join(' | ')}`);
        assert.match(partText(second), /Bob/);
        assert.match(partText(first), /Ann/);
        assert.equal(partText(second, 'word/header1.xml'), partText(first, 'word/header1.xml'));
        assert.match(partText(second, 'word/footer1.xml'), /Page footer/);
      }
    } finally {
      (zlib as { deflateRawSync: typeof deflate }).deflateRawSync = deflate;
    }
  });

  it("gives a document bound for the office its template's styles without Word's latent styles; DOCX keeps them", () => {
    const latent =
      '<w:latentStyles w:defLockedState="0" w:count="2"><w:lsdException w:name="Normal" w:qFormat="1"/><w:lsdException w:name="heading 1" w:qFormat="1"/></w:latentStyles>';
    const own = '<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>';
    const template = checkedCompile(docx(p(mergefield('a')), { styles: `<w:docDefaults/>${latent}${own}` }));
    const styles = (office: boolean) =>
      partXml(template.merge([{ a: 'A' }], DEFAULT_MERGE_OPTIONS, false, { officeBound: office })[0]!, 'word/styles.xml');
    assert.ok(styles(false).includes(latent));
    assert.equal(styles(true), styles(false).replace(latent, ''));
    // A template Word made: nothing but its latent styles goes.
    const word = fs.readFileSync(
      path.join(ROOT, 'test/fixtures/real-templates/aspose-words+Aspose.Words-for-.NET/Examples/Data/Table with fields.docx'),
    );
    const original = partXml(word, 'word/styles.xml');
    const [merged] = checkedCompile(word).merge([{}], DEFAULT_MERGE_OPTIONS, false, { officeBound: true });
    const lean = partXml(merged!, 'word/styles.xml');
    assert.match(original, /<w:latentStyles\b/);
    // (An XML reader reads a line end as \n.)
    assert.equal(lean, original.replace(/<w:latentStyles\b[^]*?<\/w:latentStyles>/, '').replace(/\r\n/g, '\n'));
    // Nothing to drop, or a part that cannot be read: the template's own part goes.
    assert.equal(withoutLatentStyles(`<w:styles ${'xmlns:w="w"'}>${own}</w:styles>`), undefined);
    assert.equal(withoutLatentStyles('<w:styles><w:latentStyles>'), undefined);
  });

  it('removes trailing empty paragraphs when asked', () => {
    const body = p(run('text')) + p() + p(mergefield('gone'));
    const paragraphs = (options: Partial<MergeOptions>) => (partXml(merge(body, {}, options)[0]!).match(/<w:p[ >/]/g) ?? []).length;
    assert.equal(paragraphs({}), 1);
    assert.equal(paragraphs({ removeTrailingWhitespace: false }), 3);
  });

  it('removes trailing page breaks, alone or ending the last paragraph, so no blank page follows', () => {
    const pageBreak = '<w:r><w:br w:type="page"/></w:r>';
    const alone = merge(p(run('report')) + `<w:p>${pageBreak}</w:p>`, {})[0]!;
    assert.ok(!partXml(alone).includes('w:br'), partXml(alone));
    const ending = merge(`<w:p>${run('report')}${pageBreak}</w:p>`, {})[0]!;
    assert.ok(!partXml(ending).includes('w:br'), partXml(ending));
    assert.match(partText(ending), /report/);
    const inside = merge(`<w:p>${run('one')}${pageBreak}${run('two')}</w:p>`, {})[0]!;
    assert.ok(partXml(inside).includes('w:br'), 'a break between texts stays');
    const kept = merge(p(run('report')) + `<w:p>${pageBreak}</w:p>`, {}, { removeTrailingWhitespace: false })[0]!;
    assert.ok(partXml(kept).includes('w:br'));
    // TX Text Control writes tab stops into every paragraph's properties: they are not content.
    const tabs = '<w:pPr><w:tabs><w:tab w:val="left" w:pos="1440"/><w:tab w:val="right" w:pos="9000"/></w:tabs></w:pPr>';
    const tx = merge(`<w:p>${tabs}${run('report')}</w:p><w:p>${tabs}${pageBreak}</w:p><w:p>${tabs}</w:p>`, {})[0]!;
    assert.ok(!partXml(tx).includes('w:br'), partXml(tx));
    assert.equal((partXml(tx).match(/<w:p[ >]/g) ?? []).length, 1);
    const sectionBreak = merge(`<w:p>${run('one')}</w:p><w:p><w:pPr><w:sectPr/></w:pPr></w:p>`, {})[0]!;
    assert.ok(partXml(sectionBreak).includes('<w:sectPr/>'), 'a section break in the properties stays');
  });

  it('writes a bookmark inside a field once, and keeps a paragraph in a cell whose only line was empty (Word rejects both)', () => {
    // A form field as Word writes it: its bookmark between the field's begin and its instruction.
    const form =
      '<w:p><w:r><w:fldChar w:fldCharType="begin"><w:ffData><w:name w:val="Text1"/><w:enabled/><w:textInput/></w:ffData></w:fldChar></w:r>' +
      '<w:bookmarkStart w:id="8" w:name="Text1"/><w:r><w:instrText xml:space="preserve"> FORMTEXT </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r>' +
      `${run('typed')}<w:r><w:fldChar w:fldCharType="end"/></w:r><w:bookmarkEnd w:id="8"/></w:p>`;
    const [out] = merge(form + p(mergefield('a')), { a: 'A' });
    assert.equal((partXml(out!).match(/<w:bookmarkStart\b/g) ?? []).length, 1);
    assert.equal(partText(out!), 'typed\nA');
    const [cells] = merge(table(row(cell(p(run('x'))), cell(p(mergefield('empty'))))), { empty: '' }, { removeEmptyLines: true });
    assert.match(partXml(cells!), /<w:tc><w:tcPr>[^]*?<\/w:tcPr><w:p\/><\/w:tc>/);
  });

  it('has an order check that finds misordered properties, and lets header and footer references mix', () => {
    const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
    const root = (xml: string) => parseXml(`<w:body ${W}>${xml}</w:body>`, 'test').root;
    assert.deepEqual(schemaOrderProblems(root('<w:p><w:pPr><w:jc w:val="left"/><w:pStyle w:val="a"/></w:pPr></w:p>'), 'x'), [
      'x: <w:pPr> has <w:pStyle> after <w:jc>',
    ]);
    assert.equal(schemaOrderProblems(root('<w:sectPr><w:pgSz/><w:type/></w:sectPr>'), 'x').length, 1);
    assert.deepEqual(schemaOrderProblems(root('<w:sectPr><w:footerReference/><w:headerReference/><w:type/><w:pgSz/></w:sectPr>'), 'x'), []);
  });

  it('appends records into one document, each in its own section', () => {
    const template = checkedCompile(docx(p(run('Dear '), mergefield('name'))));
    const [one] = template.merge([{ name: 'A' }, { name: 'B' }, { name: 'C' }], DEFAULT_MERGE_OPTIONS, true);
    assert.deepEqual(schemaOrderProblemsOf(one!), [], 'every part keeps the schema order');
    const xml = partXml(one!);
    assert.equal(partText(one!), 'Dear A\nDear B\nDear C');
    assert.equal((xml.match(/<w:sectPr>/g) ?? []).length, 3);
    assert.equal(template.merge([{ name: 'A' }, { name: 'B' }], DEFAULT_MERGE_OPTIONS, false).length, 2);
  });

  it('merges the fixtures and keeps every other part untouched', () => {
    const template = checkedCompile(fixture('test_template.docx'));
    const [out] = template.merge([{ name: 'Ann', age: 33 }], DEFAULT_MERGE_OPTIONS, false);
    assert.match(partText(out!), /Ann/);
    assert.match(partText(out!), /33/);
    const before = unzipSync(fixture('test_template.docx'));
    const after = unzipSync(out!);
    assert.deepEqual(Object.keys(after).sort(), Object.keys(before).sort());
    assert.deepEqual(after['word/styles.xml'], before['word/styles.xml']);
  });

  it('describes a template: blocks, fields with switches, custom properties', () => {
    const body =
      p(mergefield('title', '\\b "T: " \\f "!" \\* MERGEFORMAT')) +
      block(
        'items',
        p(mergefield('price', '\\# "$#,###.00"'), mergefield('when', '\\@ "dd.MM.yyyy"')),
        block('notes', p(mergefield('note'))),
      );
    const info = checkedCompile(docx(body)).info;
    assert.deepEqual(info.mergeFields, [
      {
        name: 'title',
        text: '«title»',
        textBefore: 'T: ',
        textAfter: '!',
        numericFormat: '',
        dateTimeFormat: '',
        preserveFormatting: true,
      },
    ]);
    assert.equal(info.mergeBlocks[0]!.name, 'items');
    assert.deepEqual(
      info.mergeBlocks[0]!.mergeFields.map((f) => [f.name, f.numericFormat, f.dateTimeFormat]),
      [
        ['price', '$#,###.00', ''],
        ['when', '', 'dd.MM.yyyy'],
      ],
    );
    assert.deepEqual(
      info.mergeBlocks[0]!.mergeBlocks.map((b) => [b.name, b.mergeFields.map((f) => f.name)]),
      [['notes', ['note']]],
    );
    assert.deepEqual(checkedCompile(fixture('test_template_with_user_document_properties.docx')).info.userDocumentProperties, {
      custom_entry1: 'entry1_value',
      custom_entry2: 'entry2_value',
    });
  });

  it("lists the fields of headers and footers too, after the body's", () => {
    const info = checkedCompile(
      docx(p(mergefield('name')), { header: p(mergefield('company')), footer: p(run('Page '), mergefield('reference')) }),
    ).info;
    assert.deepEqual(
      info.mergeFields.map((f) => f.name),
      ['name', 'company', 'reference'],
    );
  });

  it('refuses templates that are not well-formed, with a clear message', () => {
    const broken = unzipSync(docx(p(run('x'))));
    broken['word/document.xml'] = Buffer.from('<w:document><w:body><w:p></w:body>');
    assert.throws(
      () => checkedCompile(zipSync(broken)),
      (e: Error) => e instanceof InputError && /not well-formed XML/.test(e.message),
    );
    const bomb = unzipSync(docx(p(run('x'))));
    bomb['word/document.xml'] = Buffer.from(
      '<?xml version="1.0"?><!DOCTYPE lol [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]><w:document>&b;</w:document>',
    );
    assert.throws(() => checkedCompile(zipSync(bomb)), /DOCTYPE/);
  });
});

describe('merge engine: long values in table cells', () => {
  const words = Array.from({ length: 2000 }, (_, i) => `word${i}`).join(' ');
  const token = 'X'.repeat(9000);
  const cellTemplate = docx(
    table(
      row(cell(p(run('Key'))), cell('<w:p><w:pPr><w:spacing w:after="120"/><w:jc w:val="left"/></w:pPr>' + mergefield('v') + '</w:p>')),
    ),
  );

  it("splits a long value in a cell into paragraphs of the cell's style, keeping every character", () => {
    for (const value of [words, token, `${'line\n'.repeat(1500)}end`]) {
      const [out] = checkedCompile(cellTemplate).merge([{ v: value }], DEFAULT_MERGE_OPTIONS, false);
      const xml = partXml(out!);
      const paragraphs = xml.match(/<w:p>/g)!.length;
      assert.ok(paragraphs >= 5, `paragraphs: ${paragraphs}`);
      assert.match(xml, /<w:pPr><w:spacing w:after="120"\/><w:contextualSpacing\/><w:jc w:val="left"\/><\/w:pPr>/);
      const kept = [...xml.matchAll(/<w:t[^>]*>([^<]*)<\/w:t>/g)].map((m) => m[1]).join('');
      assert.equal(kept.replace(/\s+/g, ''), `Key${value.replace(/\s+/g, '')}`, 'every character is kept');
      assert.deepEqual(schemaOrderProblemsOf(out!), []);
    }
  });

  it('leaves short values, and long values outside tables, in one paragraph', () => {
    const [short] = checkedCompile(cellTemplate).merge([{ v: 'short' }], DEFAULT_MERGE_OPTIONS, false);
    assert.equal(partXml(short!).match(/<w:p>/g)!.length, 2);
    const [body] = checkedCompile(docx(p(mergefield('v')))).merge([{ v: words }], DEFAULT_MERGE_OPTIONS, false);
    assert.equal(partXml(body!).match(/<w:p>/g)!.length, 1);
  });
});

describe('parts are named as authors know them', () => {
  it('says the body, a header, the footnotes: never a package part a TX or DOC author never saw', () => {
    assert.deepEqual(
      ['word/document.xml', 'word/header2.xml', 'word/footer.xml', 'word/footnotes.xml', 'word/glossary/other.xml'].map(partDescription),
      ['the body', 'header 2', 'footer 1', 'the footnotes', 'word/glossary/other.xml'],
    );
  });
});
