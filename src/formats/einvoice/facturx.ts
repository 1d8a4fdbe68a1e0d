/**
 * Factur-X / ZUGFeRD: a PDF/A-3 invoice carrying its CII XML as `factur-x.xml`, an associated file
 * of the document (/AF, AFRelationship Alternative, text/xml), and the Factur-X extension schema
 * with its four properties in the document's XMP metadata, as the Factur-X 1.0 specification
 * (1.07) requires. The office writes the PDF/A-3b; this adds what it cannot. Runs in a worker
 * thread: loading and saving a PDF is CPU work.
 */
import { AFRelationship, PDFDocument, PDFName, PDFRawStream, PDFRef, decodePDFRawStream } from 'pdf-lib';
import { InputError } from '../../errors.js';
import { escapeText } from '../../ooxml/xml.js';

/** One document's invoice: its XML and Factur-X conformance level. */
export interface Invoice {
  xml: string;
  level: string;
}

export const FACTURX_FILE = 'factur-x.xml';
const FX_NAMESPACE = 'urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#';

/** The Factur-X conformance levels by the guideline ID an invoice's XML names (BT-24). */
const LEVELS: [RegExp, string][] = [
  [/urn:factur-x\.eu:1p0:minimum$/, 'MINIMUM'],
  [/urn:factur-x\.eu:1p0:basicwl$/, 'BASIC WL'],
  [/urn:factur-x\.eu:1p0:basic$/, 'BASIC'],
  [/urn:cen\.eu:en16931:2017#conformant#urn:(factur-x\.eu|zugferd\.de):(1p0|2p0):extended$/, 'EXTENDED'],
  [/urn:cen\.eu:en16931:2017#compliant#urn:xeinkauf\.de:kosit:xrechnung_\d+\.\d+/, 'XRECHNUNG'],
  [/^urn:cen\.eu:en16931:2017$/, 'EN 16931'],
];

/**
 * The conformance level of a CII invoice sent as XML text; 400 when it is not a Cross Industry
 * Invoice or names no guideline Factur-X knows. Only the root and the guideline are read: the
 * invoice is the sender's, attached as sent.
 */
export function conformanceLevel(xml: string): string {
  if (xml.length > 20 * 1024 * 1024) throw new InputError('The e-invoice XML is larger than 20 MB.');
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw new InputError('The e-invoice XML must not have a DOCTYPE or entities.');
  if (!/^\s*(<\?xml[^>]*\?>\s*)?(<!--[\s\S]*?-->\s*)*<([A-Za-z_][\w.-]*:)?CrossIndustryInvoice[\s/>]/.test(xml))
    throw new InputError(
      'The e-invoice XML must be a UN/CEFACT Cross Industry Invoice (root element CrossIndustryInvoice), as Factur-X requires.',
    );
  const guideline = /<(?:[\w.-]+:)?GuidelineSpecifiedDocumentContextParameter>\s*<(?:[\w.-]+:)?ID>([^<]*)</.exec(xml)?.[1]?.trim();
  if (!guideline)
    throw new InputError(
      'The e-invoice XML names no guideline (ExchangedDocumentContext/GuidelineSpecifiedDocumentContextParameter/ID, BT-24).',
    );
  const level = LEVELS.find(([pattern]) => pattern.test(guideline))?.[1];
  if (!level)
    throw new InputError(
      `The e-invoice XML's guideline "${guideline}" is not a Factur-X profile (MINIMUM, BASIC WL, BASIC, EN 16931, EXTENDED, XRECHNUNG).`,
    );
  return level;
}

const property = (name: string, description: string) =>
  `<rdf:li rdf:parseType="Resource"><pdfaProperty:name>${name}</pdfaProperty:name><pdfaProperty:valueType>Text</pdfaProperty:valueType>` +
  `<pdfaProperty:category>external</pdfaProperty:category><pdfaProperty:description>${description}</pdfaProperty:description></rdf:li>`;

/** The Factur-X extension schema, as one item of pdfaExtension:schemas (its prefixes declared: it may join a list). */
const SCHEMA =
  '<rdf:li rdf:parseType="Resource" xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#" xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#">' +
  '<pdfaSchema:schema>Factur-X PDFA Extension Schema</pdfaSchema:schema>' +
  `<pdfaSchema:namespaceURI>${FX_NAMESPACE}</pdfaSchema:namespaceURI>` +
  '<pdfaSchema:prefix>fx</pdfaSchema:prefix>' +
  '<pdfaSchema:property><rdf:Seq>' +
  property('DocumentFileName', 'The name of the embedded XML document') +
  property('DocumentType', 'The type of the hybrid document in capital letters, e.g. INVOICE or ORDER') +
  property('Version', 'The actual version of the standard applying to the embedded XML document') +
  property('ConformanceLevel', 'The conformance level of the embedded XML document') +
  '</rdf:Seq></pdfaSchema:property></rdf:li>';

/** The document's XMP with the Factur-X properties and their extension schema added. */
export function facturxMetadata(xmp: string, level: string): string {
  if (!xmp.includes('</rdf:RDF>')) throw new Error('the office wrote no XMP metadata to add the Factur-X properties to');
  const fx =
    `<rdf:Description rdf:about="" xmlns:fx="${FX_NAMESPACE}">` +
    `<fx:DocumentType>INVOICE</fx:DocumentType><fx:DocumentFileName>${FACTURX_FILE}</fx:DocumentFileName>` +
    `<fx:Version>1.0</fx:Version><fx:ConformanceLevel>${escapeText(level)}</fx:ConformanceLevel></rdf:Description>`;
  // One pdfaExtension:schemas property per document: join one that is there, else add it.
  const bag = /(<pdfaExtension:schemas>\s*<rdf:Bag>)/.exec(xmp);
  const withSchema = bag
    ? xmp.replace(bag[1]!, `${bag[1]}${SCHEMA}`)
    : xmp.replace(
        '</rdf:RDF>',
        '<rdf:Description rdf:about="" xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/"><pdfaExtension:schemas><rdf:Bag>' +
          SCHEMA +
          '</rdf:Bag></pdfaExtension:schemas></rdf:Description></rdf:RDF>',
      );
  return withSchema.replace('</rdf:RDF>', `${fx}</rdf:RDF>`);
}

/** A PDF/A-3 document with `xml` attached as its Factur-X invoice of `level`. */
export async function attachFacturX(pdf: Uint8Array, xml: string, level: string, at = new Date()): Promise<Buffer> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  const ref = doc.catalog.get(PDFName.of('Metadata'));
  const stream = ref instanceof PDFRef ? doc.context.lookup(ref) : undefined;
  if (!(ref instanceof PDFRef) || !(stream instanceof PDFRawStream)) throw new Error('the office wrote no XMP metadata stream');
  const xmp = Buffer.from(decodePDFRawStream(stream).decode()).toString('utf8');
  await doc.attach(Buffer.from(xml, 'utf8'), FACTURX_FILE, {
    mimeType: 'text/xml',
    description: `Factur-X invoice (${level})`,
    creationDate: at,
    modificationDate: at,
    afRelationship: AFRelationship.Alternative,
  });
  // PDF/A: the metadata stream is not compressed, so any reader finds it.
  const metadata = doc.context.stream(Buffer.from(facturxMetadata(xmp, level), 'utf8'), { Type: 'Metadata', Subtype: 'XML' });
  doc.catalog.set(PDFName.of('Metadata'), doc.context.register(metadata));
  doc.context.delete(ref);
  return Buffer.from(await doc.save({ useObjectStreams: false, updateFieldAppearances: false }));
}
