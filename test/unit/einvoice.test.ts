import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ciiBasicXml } from '../../src/formats/einvoice/cii.js';
import { conformanceLevel, facturxMetadata } from '../../src/formats/einvoice/facturx.js';
import { parseXml } from '../../src/ooxml/xml.js';

const value = (xml: string, name: string) => [...xml.matchAll(new RegExp(`<ram:${name}[^>]*>([^<]+)</ram:${name}>`, 'g'))].map((m) => m[1]);

const base = {
  number: 'A-1',
  date: '2026-02-28',
  seller: { name: 'S', vatId: 'DE1', country: 'DE' },
  buyer: { name: 'B', country: 'FR' },
};

describe('Factur-X BASIC XML from merge data', () => {
  it('computes line, tax and grand totals per VAT group, rounding each amount to cents as EN 16931 does', () => {
    const xml = ciiBasicXml({
      ...base,
      lines: [
        { name: 'a', quantity: 3, price: 0.335, vatRate: 19 }, // 1.005 -> 1.01
        { name: 'b', quantity: 1, price: 10, vatRate: 19 },
        { name: 'c', quantity: 0.5, price: 3.3333, vatRate: 7, unit: 'KGM' },
      ],
      paid: 5,
    });
    assert.deepEqual(value(xml, 'LineTotalAmount'), ['1.01', '10.00', '1.67', '12.68']);
    assert.deepEqual(value(xml, 'BasisAmount'), ['11.01', '1.67']);
    assert.deepEqual(value(xml, 'CalculatedAmount'), ['2.09', '0.12']);
    assert.deepEqual(value(xml, 'TaxTotalAmount'), ['2.21']);
    assert.deepEqual(value(xml, 'GrandTotalAmount'), ['14.89']);
    assert.deepEqual(value(xml, 'TotalPrepaidAmount'), ['5.00']);
    assert.deepEqual(value(xml, 'DuePayableAmount'), ['9.89']);
    assert.match(xml, /<ram:BilledQuantity unitCode="KGM">0\.5<\/ram:BilledQuantity>/);
    assert.match(xml, /<ram:ChargeAmount>3\.3333<\/ram:ChargeAmount>/);
    assert.match(xml, /<udt:DateTimeString format="102">20260228<\/udt:DateTimeString>/);
    assert.equal(parseXml(xml, 'the invoice').root.name, 'rsm:CrossIndustryInvoice');
  });

  it('reads the record itself when it has no einvoice object, and escapes what it writes', () => {
    const xml = ciiBasicXml({
      ...base,
      typeCode: '381',
      note: 'a < b & "c"',
      lines: [{ name: 'x', quantity: 1, price: 1, vatCategory: 'O', vatExemptionReason: 'Not subject' }],
    });
    assert.match(xml, /<ram:TypeCode>381<\/ram:TypeCode>/);
    assert.match(xml, /<ram:Content>a &lt; b &amp; "c"<\/ram:Content>/);
    assert.doesNotMatch(xml, /RateApplicablePercent/, 'category O has no rate');
    assert.doesNotMatch(xml, /SpecifiedTradeSettlementPaymentMeans|SpecifiedTradePaymentTerms|ActualDeliverySupplyChainEvent/);
  });

  it('refuses text an XML invoice cannot carry (control characters, unpaired surrogates), naming the field', () => {
    const lines = [{ name: 'x', quantity: 1, price: 1, vatRate: 19 }];
    assert.throws(
      () => ciiBasicXml({ ...base, note: 'line\u0007bell', lines }),
      /note holds the character U\+0007, which an XML invoice cannot carry/,
    );
    assert.throws(
      () => ciiBasicXml({ ...base, buyer: { name: 'B\uD800', country: 'FR' }, lines }),
      /buyer\.name holds the character U\+D800/,
    );
    const fine = ciiBasicXml({ ...base, note: 'tab\there, new\nline \uD83D\uDE00', lines });
    assert.equal(parseXml(fine, 'the invoice').root.name, 'rsm:CrossIndustryInvoice');
  });

  it('names every problem at once', () => {
    assert.throws(
      () =>
        ciiBasicXml(
          {
            einvoice: {
              date: '2026-02-30',
              currency: 'euro',
              seller: { name: 'S', country: 'DE' },
              buyer: { name: 'B', country: 'DE' },
              lines: [
                { name: 'a', quantity: 1, price: 1, vatCategory: 'AE' },
                { name: 'b', quantity: 1, price: -1, vatRate: 19, unit: 'pieces' },
              ],
            },
          },
          'record 3',
        ),
      (error: Error) => {
        for (const expected of [
          /^The e-invoice of record 3 cannot be made: /,
          /einvoice\.number is missing/,
          /einvoice\.date must be a date as YYYY-MM-DD, not "2026-02-30"/,
          /einvoice\.currency must be an ISO 4217 code/,
          /einvoice\.lines\[0\]\.vatExemptionReason is missing \(VAT category AE needs one\)/,
          /einvoice\.lines\[1\]\.price must not be negative/,
          /einvoice\.lines\[1\]\.unit must be a UN\/ECE Recommendation 20 code/,
          /einvoice\.seller\.vatId \(or taxNumber\) is missing/,
          /einvoice\.seller\.vatId and einvoice\.buyer\.vatId are both needed/,
        ])
          assert.match(error.message, expected);
        return true;
      },
    );
    assert.throws(() => ciiBasicXml({ ...base, lines: [] }), /lines is missing \(a list of at least one invoice line\)/);
  });
});

describe('Factur-X in the PDF', () => {
  it('reads the conformance level from the XML guideline, and refuses what is not a Factur-X invoice', () => {
    const cii = (id: string) =>
      `<?xml version="1.0"?><rsm:CrossIndustryInvoice xmlns:rsm="x"><rsm:ExchangedDocumentContext><ram:GuidelineSpecifiedDocumentContextParameter><ram:ID>${id}</ram:ID></ram:GuidelineSpecifiedDocumentContextParameter></rsm:ExchangedDocumentContext></rsm:CrossIndustryInvoice>`;
    assert.equal(conformanceLevel(cii('urn:factur-x.eu:1p0:minimum')), 'MINIMUM');
    assert.equal(conformanceLevel(cii('urn:factur-x.eu:1p0:basicwl')), 'BASIC WL');
    assert.equal(conformanceLevel(cii('urn:cen.eu:en16931:2017#compliant#urn:factur-x.eu:1p0:basic')), 'BASIC');
    assert.equal(conformanceLevel(cii('urn:cen.eu:en16931:2017')), 'EN 16931');
    assert.equal(conformanceLevel(cii('urn:cen.eu:en16931:2017#conformant#urn:factur-x.eu:1p0:extended')), 'EXTENDED');
    assert.equal(conformanceLevel(cii('urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0')), 'XRECHNUNG');
    assert.throws(() => conformanceLevel(cii('urn:example')), /"urn:example" is not a Factur-X profile/);
    assert.throws(() => conformanceLevel('<rsm:CrossIndustryInvoice/>'), /names no guideline/);
  });

  it('adds the Factur-X properties and joins an extension schema list already there', () => {
    const xmp = (inner: string) =>
      `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">${inner}</rdf:RDF></x:xmpmeta>`;
    const plain = facturxMetadata(
      xmp('<rdf:Description rdf:about="" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/"><pdfaid:part>3</pdfaid:part></rdf:Description>'),
      'BASIC',
    );
    assert.equal(plain.match(/<pdfaExtension:schemas>/g)?.length, 1);
    assert.match(plain, /<fx:ConformanceLevel>BASIC<\/fx:ConformanceLevel>/);
    assert.ok(parseXml(plain, 'XMP'));
    const existing = xmp(
      '<rdf:Description rdf:about="" xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/"><pdfaExtension:schemas><rdf:Bag><rdf:li>other</rdf:li></rdf:Bag></pdfaExtension:schemas></rdf:Description>',
    );
    const joined = facturxMetadata(existing, 'EN 16931');
    assert.equal(joined.match(/<pdfaExtension:schemas>/g)?.length, 1, 'one schemas property');
    assert.ok(parseXml(joined, 'XMP'));
    assert.match(
      joined,
      /<rdf:Bag><rdf:li rdf:parseType="Resource"[^>]*><pdfaSchema:schema>Factur-X PDFA Extension Schema[\s\S]*<rdf:li>other<\/rdf:li>/,
    );
  });
});
