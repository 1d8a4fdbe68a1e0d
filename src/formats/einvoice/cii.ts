/**
 * An invoice's data as the UN/CEFACT Cross Industry Invoice (CII) XML of the Factur-X / ZUGFeRD
 * BASIC profile (EN 16931's core, with lines). The data's names are docsmith's own, documented in
 * docs/einvoice.md; totals and VAT breakdown are computed here, as EN 16931's rules (BR-CO-*)
 * require, so the XML always adds up. Elements are written in the order the profile's schema
 * requires.
 */
import { InputError } from '../../errors.js';
import { escapeAttr, escapeText } from '../../ooxml/xml.js';
import type { Json as JsonValue, JsonObject } from '../../merge/scope.js';

export const BASIC_GUIDELINE = 'urn:cen.eu:en16931:2017#compliant#urn:factur-x.eu:1p0:basic';

const NAMESPACES =
  'xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100" ' +
  'xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100" ' +
  'xmlns:qdt="urn:un:unece:uncefact:data:standard:QualifiedDataType:100" ' +
  'xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100"';

/** VAT categories (UNTDID 5305, as EN 16931 uses them) and whether they need an exemption reason. */
const CATEGORIES: Record<string, { rated: boolean; reason: boolean }> = {
  S: { rated: true, reason: false }, // standard rate
  Z: { rated: false, reason: false }, // zero rated
  E: { rated: false, reason: true }, // exempt
  AE: { rated: false, reason: true }, // reverse charge
  K: { rated: false, reason: true }, // intra-community supply
  G: { rated: false, reason: true }, // export outside the EU
  O: { rated: false, reason: true }, // not subject to VAT
  L: { rated: true, reason: false }, // Canary Islands
  M: { rated: true, reason: false }, // Ceuta and Melilla
};

interface Party {
  name: string;
  vatId?: string;
  taxNumber?: string;
  street?: string;
  postcode?: string;
  city?: string;
  country: string;
}

interface Line {
  name: string;
  quantity: number;
  unit: string;
  price: number;
  category: string;
  rate: number;
  reason?: string;
  net: number;
}

/** Characters XML 1.0 cannot hold, escaped or not: control characters, U+FFFE, U+FFFF and unpaired surrogates. */
const NOT_IN_XML =
  // Control characters are what this looks for.
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Collects every problem with the data, so one answer names them all. */
class Reader {
  readonly problems: string[] = [];
  /** Prepended to the names in messages: `einvoice.` when the data is the record's einvoice object. */
  constructor(private readonly pre: string) {}

  private value(object: JsonObject, key: string): JsonValue | undefined {
    const v = object[key];
    return v === null || v === '' ? undefined : v;
  }

  text(object: JsonObject, key: string, path: string, required: true): string;
  text(object: JsonObject, key: string, path: string, required?: false): string | undefined;
  text(object: JsonObject, key: string, path: string, required = false): string | undefined {
    const v = this.value(object, key);
    if (v === undefined) {
      if (required) this.problems.push(`${path} is missing`);
      return required ? '' : undefined;
    }
    if (typeof v === 'string') {
      const bad = NOT_IN_XML.exec(v);
      if (bad) {
        const code = bad[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
        this.problems.push(`${path} holds the character U+${code}, which an XML invoice cannot carry`);
        return '';
      }
      return v.trim();
    }
    if (typeof v === 'number') return String(v);
    this.problems.push(`${path} must be text`);
    return '';
  }

  number(object: JsonObject, key: string, path: string, fallback?: number): number {
    const v = this.value(object, key);
    if (v === undefined) {
      if (fallback !== undefined) return fallback;
      this.problems.push(`${path} is missing`);
      return 0;
    }
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : NaN;
    if (!Number.isFinite(n)) this.problems.push(`${path} must be a number (with a point for decimals), not ${JSON.stringify(v)}`);
    return Number.isFinite(n) ? n : 0;
  }

  /** An ISO date (2026-11-26) as CII's format 102 (20261126). */
  date(object: JsonObject, key: string, path: string, required: boolean): string | undefined {
    const v = required ? this.text(object, key, path, true) : this.text(object, key, path);
    if (v === undefined || v === '') return undefined;
    const m = /^(\d{4})-(\d{2})-(\d{2})(?:$|T)/.exec(v);
    const valid =
      m &&
      !Number.isNaN(Date.parse(`${m[1]}-${m[2]}-${m[3]}T00:00:00Z`)) &&
      new Date(`${m[1]}-${m[2]}-${m[3]}`).getUTCDate() === Number(m[3]);
    if (!valid) {
      this.problems.push(`${path} must be a date as YYYY-MM-DD, not ${JSON.stringify(v)}`);
      return undefined;
    }
    return `${m[1]}${m[2]}${m[3]}`;
  }

  object(object: JsonObject, key: string, path: string): JsonObject {
    const v = object[key];
    if (v && typeof v === 'object' && !Array.isArray(v)) return v;
    this.problems.push(`${path} is missing (an object)`);
    return {};
  }

  party(object: JsonObject, key: string): Party {
    const path = `${this.pre}${key}`;
    const p = this.object(object, key, path);
    const country = this.text(p, 'country', `${path}.country`, true).toUpperCase();
    if (country && !/^[A-Z]{2}$/.test(country))
      this.problems.push(`${path}.country must be a two-letter ISO 3166 code such as DE, not "${country}"`);
    return {
      name: this.text(p, 'name', `${path}.name`, true),
      vatId: this.text(p, 'vatId', `${path}.vatId`),
      taxNumber: this.text(p, 'taxNumber', `${path}.taxNumber`),
      street: this.text(p, 'street', `${path}.street`),
      postcode: this.text(p, 'postcode', `${path}.postcode`),
      city: this.text(p, 'city', `${path}.city`),
      country,
    };
  }

  line(object: JsonValue, i: number): Line {
    const path = `${this.pre}lines[${i}]`;
    if (!object || typeof object !== 'object' || Array.isArray(object)) {
      this.problems.push(`${path} must be an object`);
      return { name: '', quantity: 0, unit: 'C62', price: 0, category: 'S', rate: 0, net: 0 };
    }
    const category = (this.text(object, 'vatCategory', `${path}.vatCategory`) ?? 'S').toUpperCase();
    const kind = CATEGORIES[category];
    if (!kind) this.problems.push(`${path}.vatCategory must be one of ${Object.keys(CATEGORIES).join(', ')}, not "${category}"`);
    const rate = this.number(object, 'vatRate', `${path}.vatRate`, kind?.rated ? undefined : 0);
    if (kind && !kind.rated && rate !== 0) this.problems.push(`${path}.vatRate must be 0 for VAT category ${category}`);
    const reason = this.text(object, 'vatExemptionReason', `${path}.vatExemptionReason`);
    if (kind?.reason && !reason) this.problems.push(`${path}.vatExemptionReason is missing (VAT category ${category} needs one)`);
    const quantity = this.number(object, 'quantity', `${path}.quantity`);
    const price = this.number(object, 'price', `${path}.price`);
    if (price < 0) this.problems.push(`${path}.price must not be negative (EN 16931: a negative quantity makes a credit line)`);
    const unit = this.text(object, 'unit', `${path}.unit`) ?? 'C62';
    if (!/^[A-Z0-9]{1,3}$/.test(unit))
      this.problems.push(`${path}.unit must be a UN/ECE Recommendation 20 code such as C62 (one) or HUR (hour), not "${unit}"`);
    return {
      name: this.text(object, 'name', `${path}.name`, true),
      quantity,
      unit,
      price,
      category,
      rate,
      ...(reason ? { reason } : {}),
      net: round2(quantity * price),
    };
  }
}

const round2 = (n: number) => Math.round((n + Number.EPSILON) * 100) / 100;
const amount = (n: number) => round2(n).toFixed(2);
/** Quantities and unit prices keep up to four decimals, without trailing zeros. */
const decimal = (n: number) => String(Math.round(n * 10_000) / 10_000);
const rateText = (n: number) => decimal(n);

const el = (name: string, content: string, attrs = '') => `<${name}${attrs}>${content}</${name}>`;
const txt = (name: string, value: string, attrs = '') => el(name, escapeText(value), attrs);
const opt = (name: string, value: string | undefined) => (value ? txt(name, value) : '');
const dateTime = (name: string, yyyymmdd: string) => el(name, txt('udt:DateTimeString', yyyymmdd, ' format="102"'));

function party(tag: string, p: Party): string {
  const address =
    opt('ram:PostcodeCode', p.postcode) + opt('ram:LineOne', p.street) + opt('ram:CityName', p.city) + txt('ram:CountryID', p.country);
  const registrations =
    (p.vatId ? el('ram:SpecifiedTaxRegistration', txt('ram:ID', p.vatId, ' schemeID="VA"')) : '') +
    (p.taxNumber ? el('ram:SpecifiedTaxRegistration', txt('ram:ID', p.taxNumber, ' schemeID="FC"')) : '');
  return el(tag, txt('ram:Name', p.name) + el('ram:PostalTradeAddress', address) + registrations);
}

/** The invoice data of one merge record: its `einvoice` object when it has one, else the record itself. */
export function invoiceData(record: JsonObject): { data: JsonObject; pre: string } {
  const inner = record.einvoice;
  if (inner && typeof inner === 'object' && !Array.isArray(inner)) return { data: inner, pre: 'einvoice.' };
  return { data: record, pre: '' };
}

/**
 * The Factur-X BASIC XML of one merge record; 400 naming every missing or wrong value. `label`
 * says which record (the merge data's position) in messages.
 */
export function ciiBasicXml(record: JsonObject, label = 'record 1'): string {
  const { data, pre } = invoiceData(record);
  const r = new Reader(pre);
  const number = r.text(data, 'number', `${pre}number`, true);
  const issued = r.date(data, 'date', `${pre}date`, true);
  const typeCode = r.text(data, 'typeCode', `${pre}typeCode`) ?? '380';
  if (!/^\d{3}$/.test(typeCode)) r.problems.push(`${pre}typeCode must be a UNTDID 1001 code such as 380 (invoice) or 381 (credit note)`);
  const currency = (r.text(data, 'currency', `${pre}currency`) ?? 'EUR').toUpperCase();
  if (!/^[A-Z]{3}$/.test(currency)) r.problems.push(`${pre}currency must be an ISO 4217 code such as EUR, not "${currency}"`);
  const seller = r.party(data, 'seller');
  const buyer = r.party(data, 'buyer');
  const delivered = r.date(data, 'deliveryDate', `${pre}deliveryDate`, false);
  const due = r.date(data, 'dueDate', `${pre}dueDate`, false);
  const paid = r.number(data, 'paid', `${pre}paid`, 0);
  const rawLines = data.lines;
  const lines = Array.isArray(rawLines) ? rawLines.map((line, i) => r.line(line, i)) : [];
  if (!Array.isArray(rawLines) || lines.length === 0) r.problems.push(`${pre}lines is missing (a list of at least one invoice line)`);
  if (lines.some((l) => l.category === 'S' || l.category === 'L' || l.category === 'M') && !seller.vatId && !seller.taxNumber)
    r.problems.push(`${pre}seller.vatId (or taxNumber) is missing: VAT at a rate needs the seller's VAT identifier`);
  if (lines.some((l) => l.category === 'AE' || l.category === 'K') && (!seller.vatId || !buyer.vatId))
    r.problems.push(`${pre}seller.vatId and ${pre}buyer.vatId are both needed for reverse charge and intra-community supplies`);
  const terms = r.text(data, 'paymentTerms', `${pre}paymentTerms`);
  const note = r.text(data, 'note', `${pre}note`);
  if (r.problems.length)
    throw new InputError(`The e-invoice of ${label} cannot be made: ${r.problems.join('; ')}. docs/einvoice.md lists the names it reads.`);

  // VAT breakdown: one group per category and rate (BG-23), the tax computed on the group's basis.
  const groups = new Map<string, { category: string; rate: number; reason?: string; basis: number }>();
  for (const l of lines) {
    const key = `${l.category}/${l.rate}`;
    const group = groups.get(key) ?? { category: l.category, rate: l.rate, ...(l.reason ? { reason: l.reason } : {}), basis: 0 };
    group.basis = round2(group.basis + l.net);
    groups.set(key, group);
  }
  const lineTotal = round2(lines.reduce((sum, l) => sum + l.net, 0));
  const taxes = [...groups.values()].map((g) => ({ ...g, tax: round2((g.basis * g.rate) / 100) }));
  const taxTotal = round2(taxes.reduce((sum, t) => sum + t.tax, 0));
  const grand = round2(lineTotal + taxTotal);

  const lineXml = lines
    .map((l, i) =>
      el(
        'ram:IncludedSupplyChainTradeLineItem',
        el('ram:AssociatedDocumentLineDocument', txt('ram:LineID', String(i + 1))) +
          el('ram:SpecifiedTradeProduct', txt('ram:Name', l.name)) +
          el('ram:SpecifiedLineTradeAgreement', el('ram:NetPriceProductTradePrice', txt('ram:ChargeAmount', decimal(l.price)))) +
          el('ram:SpecifiedLineTradeDelivery', txt('ram:BilledQuantity', decimal(l.quantity), ` unitCode="${escapeAttr(l.unit)}"`)) +
          el(
            'ram:SpecifiedLineTradeSettlement',
            el(
              'ram:ApplicableTradeTax',
              txt('ram:TypeCode', 'VAT') +
                txt('ram:CategoryCode', l.category) +
                (l.category === 'O' ? '' : txt('ram:RateApplicablePercent', rateText(l.rate))),
            ) + el('ram:SpecifiedTradeSettlementLineMonetarySummation', txt('ram:LineTotalAmount', amount(l.net))),
          ),
      ),
    )
    .join('');

  const iban = r.text(data, 'iban', `${pre}iban`);
  const paymentMeans = iban
    ? el(
        'ram:SpecifiedTradeSettlementPaymentMeans',
        txt('ram:TypeCode', '58') + el('ram:PayeePartyCreditorFinancialAccount', txt('ram:IBANID', iban.replace(/\s+/g, ''))),
      )
    : '';
  const taxXml = taxes
    .map((t) =>
      el(
        'ram:ApplicableTradeTax',
        txt('ram:CalculatedAmount', amount(t.tax)) +
          txt('ram:TypeCode', 'VAT') +
          opt('ram:ExemptionReason', t.reason) +
          txt('ram:BasisAmount', amount(t.basis)) +
          txt('ram:CategoryCode', t.category) +
          (t.category === 'O' ? '' : txt('ram:RateApplicablePercent', rateText(t.rate))),
      ),
    )
    .join('');
  const termsXml =
    terms || due
      ? el('ram:SpecifiedTradePaymentTerms', opt('ram:Description', terms) + (due ? dateTime('ram:DueDateDateTime', due) : ''))
      : '';

  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    el(
      'rsm:CrossIndustryInvoice',
      el('rsm:ExchangedDocumentContext', el('ram:GuidelineSpecifiedDocumentContextParameter', txt('ram:ID', BASIC_GUIDELINE))) +
        el(
          'rsm:ExchangedDocument',
          txt('ram:ID', number) +
            txt('ram:TypeCode', typeCode) +
            dateTime('ram:IssueDateTime', issued!) +
            (note ? el('ram:IncludedNote', txt('ram:Content', note)) : ''),
        ) +
        el(
          'rsm:SupplyChainTradeTransaction',
          lineXml +
            el(
              'ram:ApplicableHeaderTradeAgreement',
              opt('ram:BuyerReference', r.text(data, 'buyerReference', `${pre}buyerReference`)) +
                party('ram:SellerTradeParty', seller) +
                party('ram:BuyerTradeParty', buyer),
            ) +
            el(
              'ram:ApplicableHeaderTradeDelivery',
              delivered ? el('ram:ActualDeliverySupplyChainEvent', dateTime('ram:OccurrenceDateTime', delivered)) : '',
            ) +
            el(
              'ram:ApplicableHeaderTradeSettlement',
              opt('ram:PaymentReference', r.text(data, 'paymentReference', `${pre}paymentReference`)) +
                txt('ram:InvoiceCurrencyCode', currency) +
                paymentMeans +
                taxXml +
                termsXml +
                el(
                  'ram:SpecifiedTradeSettlementHeaderMonetarySummation',
                  txt('ram:LineTotalAmount', amount(lineTotal)) +
                    txt('ram:TaxBasisTotalAmount', amount(lineTotal)) +
                    txt('ram:TaxTotalAmount', amount(taxTotal), ` currencyID="${currency}"`) +
                    txt('ram:GrandTotalAmount', amount(grand)) +
                    (paid ? txt('ram:TotalPrepaidAmount', amount(paid)) : '') +
                    txt('ram:DuePayableAmount', amount(grand - paid)),
                ),
            ),
        ),
      ` ${NAMESPACES}`,
    )
  );
}
