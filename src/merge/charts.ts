/**
 * Charts bound to merge blocks. A chart (a drawing holding `c:chart`) whose name (wp:docPr/@name,
 * a `_tx_id_N_` prefix ignored) is a merge block's name shows that block's rows: each series takes
 * the column named like the series, the categories take the first column that no series uses.
 * This is how TX Text Control binds charts (the chart frame is named after the data table).
 * The chart's caches (what viewers draw) and its embedded workbook (what an editor opens) are
 * both rewritten, so the result is no longer the design-time data.
 */
import path from 'node:path';
import { OoxmlPackage } from '../ooxml/package.js';
import { escapeText } from '../ooxml/xml.js';
import { writeZip } from '../ooxml/zip.js';
import type { Json, JsonObject } from './scope.js';

const CHART_REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/chart';
const PACKAGE_REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/package';

export interface ChartBinding {
  /** The chart's name, which names the block whose rows it shows. */
  name: string;
  /** The chart part (word/charts/chart1.xml). */
  part: string;
  /** The series names, in order. */
  series: string[];
}

/** The charts of the main document part, by name. */
export function findCharts(pkg: OoxmlPackage, mainPart: string): ChartBinding[] {
  const xml = pkg.text(mainPart) ?? '';
  if (!xml.includes('drawingml/2006/chart')) return [];
  const rels = new Map(
    pkg
      .relationships(mainPart)
      .filter((r) => r.type === CHART_REL && !r.external)
      .map((r) => [r.id, OoxmlPackage.resolve(mainPart, r.target)]),
  );
  const charts: ChartBinding[] = [];
  for (const drawing of xml.match(/<w:drawing\b[\s\S]*?<\/w:drawing>/g) ?? []) {
    const id = /<c:chart\b[^>]*\br:id="([^"]+)"/.exec(drawing)?.[1];
    const name = /<wp:docPr\b[^>]*\bname="([^"]*)"/.exec(drawing)?.[1];
    const part = id ? rels.get(id) : undefined;
    if (!part || !name || !pkg.has(part)) continue;
    charts.push({ name: unescapeAttr(name).replace(/^_tx_id_\d+_/, ''), part, series: seriesNames(pkg.text(part) ?? '') });
  }
  return charts;
}

function unescapeAttr(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

function seriesNames(chartXml: string): string[] {
  return (chartXml.match(/<c:ser>[\s\S]*?<\/c:ser>/g) ?? []).map((ser) => {
    const tx = /<c:tx>([\s\S]*?)<\/c:tx>/.exec(ser)?.[1] ?? '';
    return unescapeAttr(/<c:v>([\s\S]*?)<\/c:v>/.exec(tx)?.[1] ?? '');
  });
}

/** What /templates/info says about a chart: the block it shows, or why it cannot be bound. */
export interface ChartInfo {
  name: string;
  mergeBlock: string | null;
  series: string[];
  problem: string | null;
}

export function describeCharts(charts: ChartBinding[], blocks: { name: string; fields: string[] }[]): ChartInfo[] {
  return charts.map((chart) => {
    const block = blocks.find((b) => b.name.toLowerCase() === chart.name.toLowerCase());
    if (!block) {
      return {
        name: chart.name,
        mergeBlock: null,
        series: chart.series,
        problem: `No merge block is named "${chart.name}": the chart keeps its design-time data. Name the chart after the merge block whose rows it shows.`,
      };
    }
    const fields = new Set(block.fields.map((f) => f.toLowerCase()));
    const unknown = chart.series.filter((s) => !fields.has(s.toLowerCase()));
    return {
      name: chart.name,
      mergeBlock: block.name,
      series: chart.series,
      problem: unknown.length
        ? `The series ${unknown.map((s) => `"${s}"`).join(', ')} name no field of the block "${block.name}"; a series shows the column named like it.`
        : null,
    };
  });
}

function keyOf(row: JsonObject, name: string): string | undefined {
  if (name in row) return name;
  const lower = name.toLowerCase();
  return Object.keys(row).find((k) => k.toLowerCase() === lower);
}

function scalar(value: Json | undefined): string {
  if (value === undefined || value === null || typeof value === 'object') return '';
  return String(value);
}

function numeric(value: Json | undefined): string | undefined {
  const text = scalar(value).trim();
  return /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text) ? String(Number(text)) : undefined;
}

function column(n: number): string {
  let s = '';
  for (let i = n + 1; i > 0; i = Math.floor((i - 1) / 26)) s = String.fromCharCode(65 + ((i - 1) % 26)) + s;
  return s;
}

/** The sheet the chart's formulas name (`Sheet1`, `'My data'`). */
function sheetOf(chartXml: string): string {
  const f = /<c:f>([^<]*)<\/c:f>/.exec(chartXml)?.[1];
  const name = f ? unescapeAttr(f).replace(/!.*$/, '') : 'Sheet1';
  return name || 'Sheet1';
}

const strCache = (values: string[]) =>
  `<c:strCache><c:ptCount val="${values.length}"/>${values.map((v, i) => `<c:pt idx="${i}"><c:v>${escapeText(v)}</c:v></c:pt>`).join('')}</c:strCache>`;

const numCache = (values: (string | undefined)[], format: string) =>
  `<c:numCache><c:formatCode>${format}</c:formatCode><c:ptCount val="${values.length}"/>${values.map((v, i) => (v === undefined ? '' : `<c:pt idx="${i}"><c:v>${v}</c:v></c:pt>`)).join('')}</c:numCache>`;

/**
 * Fills the chart with the rows: categories from the first column no series uses, each series
 * from its own column. Returns the chart XML and the table for the embedded workbook.
 */
export function fillChartXml(chartXml: string, rows: JsonObject[]): { xml: string; table: string[][] } {
  const names = seriesNames(chartXml);
  const first = rows[0] ?? {};
  const used = new Set(names.map((n) => keyOf(first, n)).filter((k): k is string => k !== undefined));
  const categoryKey = Object.keys(first).find((k) => !used.has(k));
  const categories = rows.map((row) => scalar(categoryKey ? row[categoryKey] : undefined));
  const sheet = sheetOf(chartXml);
  const quoted = /^[A-Za-z_][A-Za-z0-9_.]*$/.test(sheet.replace(/^'|'$/g, ''))
    ? sheet
    : `'${sheet.replace(/^'|'$/g, '').replace(/'/g, "''")}'`;
  const last = Math.max(2, rows.length + 1);
  const ref = (col: number, from: number, to: number) =>
    escapeText(`${quoted}!$${column(col)}$${from}${to !== from ? `:$${column(col)}$${to}` : ''}`);
  const table: string[][] = [
    [categoryKey ?? '', ...names],
    ...rows.map((row, r) => [categories[r]!, ...names.map((n) => scalar(row[keyOf(row, n) ?? '']))]),
  ];

  let index = 0;
  const xml = chartXml.replace(/<c:ser>[\s\S]*?<\/c:ser>/g, (ser) => {
    const i = index++;
    const name = names[i] ?? '';
    const key = keyOf(first, name);
    const values = rows.map((row) => numeric(key ? row[key] : undefined));
    const format = /<c:formatCode>([^<]*)<\/c:formatCode>/.exec(ser)?.[1] ?? 'General';
    const catXml = `<c:strRef><c:f>${ref(0, 2, last)}</c:f>${strCache(categories)}</c:strRef>`;
    const valXml = `<c:numRef><c:f>${ref(i + 1, 2, last)}</c:f>${numCache(values, format)}</c:numRef>`;
    return ser
      .replace(/<c:tx>[\s\S]*?<\/c:tx>/, `<c:tx><c:strRef><c:f>${ref(i + 1, 1, 1)}</c:f>${strCache([name])}</c:strRef></c:tx>`)
      .replace(
        /<c:(cat|xVal)>[\s\S]*?<\/c:\1>/,
        (_m, tag: string) =>
          `<c:${tag}>${
            tag === 'xVal' && categories.every((c) => numeric(c) !== undefined)
              ? `<c:numRef><c:f>${ref(0, 2, last)}</c:f>${numCache(
                  categories.map((c) => numeric(c)),
                  'General',
                )}</c:numRef>`
              : catXml
          }</c:${tag}>`,
      )
      .replace(/<c:(val|yVal)>[\s\S]*?<\/c:\1>/, (_m, tag: string) => `<c:${tag}>${valXml}</c:${tag}>`);
  });
  return { xml, table };
}

/** A minimal workbook holding the chart's table on one sheet (numbers as numbers). */
export function workbook(sheet: string, table: string[][]): Buffer {
  const name = sheet.replace(/^'|'$/g, '').replace(/''/g, "'");
  const rows = table
    .map(
      (cells, r) =>
        `<row r="${r + 1}">${cells
          .map((value, c) => {
            const at = `${column(c)}${r + 1}`;
            if (value === '') return '';
            return r > 0 && c > 0 && numeric(value) !== undefined
              ? `<c r="${at}"><v>${numeric(value)}</v></c>`
              : `<c r="${at}" t="inlineStr"><is><t xml:space="preserve">${escapeText(value)}</t></is></c>`;
          })
          .join('')}</row>`,
    )
    .join('');
  const ns = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
  const rel = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
  const parts: [string, string][] = [
    [
      '[Content_Types].xml',
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>',
    ],
    [
      '_rels/.rels',
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${rel}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    ],
    [
      'xl/workbook.xml',
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><workbook xmlns="${ns}" xmlns:r="${rel}"><sheets><sheet name="${escapeText(name).replace(/"/g, '&quot;')}" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    ],
    [
      'xl/_rels/workbook.xml.rels',
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${rel}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
    ],
    [
      'xl/worksheets/sheet1.xml',
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet xmlns="${ns}"><sheetData>${rows}</sheetData></worksheet>`,
    ],
  ];
  return writeZip(parts.map(([n, text]) => [n, Buffer.from(text, 'utf8')]));
}

/** Rewrites a bound chart (and its embedded workbook) in an output package. */
export function fillChart(pkg: OoxmlPackage, chart: ChartBinding, rows: JsonObject[]): void {
  const source = pkg.text(chart.part);
  if (source === undefined) return;
  const { xml, table } = fillChartXml(source, rows);
  pkg.setText(chart.part, xml);
  const embedded = pkg.relationships(chart.part).find((r) => r.type === PACKAGE_REL && !r.external);
  if (embedded) pkg.parts.set(OoxmlPackage.resolve(chart.part, embedded.target), workbook(sheetOf(source), table));
}

/**
 * A copy of a chart part (with an embedded workbook of its own; style and colour parts are
 * shared) as `word/charts/docsmith-chartN.xml`, for one block repetition's chart.
 */
export function copyChart(pkg: OoxmlPackage, sourcePart: string, n: number): string {
  const part = `word/charts/docsmith-chart${n}.xml`;
  pkg.setText(part, pkg.text(sourcePart) ?? '');
  const type = pkg.contentTypeOf(sourcePart);
  if (type) pkg.addContentTypeOverride(part, type);
  const folder = part.slice(0, part.lastIndexOf('/'));
  pkg.addRelationships(
    part,
    pkg.relationships(sourcePart).map((rel) => {
      if (rel.external) return rel;
      const target = OoxmlPackage.resolve(sourcePart, rel.target);
      if (rel.type !== PACKAGE_REL) return { ...rel, target: path.posix.relative(folder, target) };
      const workbookPart = `word/embeddings/docsmith-chart${n}.xlsx`;
      const bytes = pkg.parts.get(target);
      if (bytes) pkg.parts.set(workbookPart, bytes);
      pkg.addContentTypeDefault('xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
      return { ...rel, target: path.posix.relative(folder, workbookPart) };
    }),
  );
  return part;
}

/** The series names of a chart part (for a copy's binding). */
export function chartSeries(pkg: OoxmlPackage, part: string): string[] {
  return seriesNames(pkg.text(part) ?? '');
}
