// How a long table's parts are planned (operations/longTable.ts), against an office simulated by a
// greedy page filler: every row has a height, a page holds rows while they fit. The joined pages
// must be those of one layout, numbered on, whatever the rows and however many processes.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { longTablePdf, longTableParts } from '../../src/operations/longTable.js';
import type { Converter } from '../../src/convert/converter.js';
import type { PartStart, TableBreak } from '../../src/office/process.js';
import type { LongTableSplit } from '../../src/ooxml/longTable.js';
import type { DocumentWorkers } from '../../src/workers/pool.js';

const CAPACITY = 100;

/** Page starts of a greedy layout of `heights` (no row is split: every page start is clean). */
function paginate(heights: number[]): number[] {
  const starts = [0];
  let used = 0;
  for (const [i, h] of heights.entries()) {
    if (used + h > CAPACITY && used > 0) {
      starts.push(i);
      used = 0;
    }
    used += h;
  }
  return starts;
}

type Page = { number: number; rows: number[] };

/** The simulated office: lays out the part's rows, breaks as the bridge does (the latest page start after the first). */
function office(heights: number[], options: OfficeOptions = {}) {
  const log: string[] = [];
  const formats: string[] = [];
  const converter = {
    // The prototype (parts as ODT): converted, or the office fails on it.
    longTablePrototype: async () => (options.prototype === 'fails' ? null : Buffer.from('odt')),
    async longTablePart(
      { bytes: docx, format }: { bytes: Buffer; format: string },
      part: { headerRows: number; last: boolean },
      _options: unknown,
      flow: { held?: () => Promise<PartStart | null>; broke?: (found: TableBreak) => void; started?: (run: boolean) => void },
    ) {
      const xml = docx.toString('utf8');
      formats.push(format);
      let rows = [...xml.matchAll(/ROW (\d+)</g)].map((m) => Number(m[1]));
      let page = Number(/w:start="(\d+)"/.exec(xml)?.[1] ?? 1);
      if (flow.held && options.refuseHolds) return null;
      flow.started?.(true);
      await new Promise((resolve) => setImmediate(resolve));
      let kept = '';
      if (flow.held) {
        const start = await flow.held();
        if (!start) {
          log.push(`dropped from ${rows[0]}`);
          return null;
        }
        // Laid out from where it was made: told a true start that began one of its pages, it keeps that layout.
        if (paginate(rows.map((r) => heights[r]!)).includes(start.trim)) kept = ` kept (${start.trim} rows before)`;
        rows = rows.slice(start.trim);
        page = start.page;
      }
      log.push(`${flow.held ? 'ahead' : 'in turn'} from ${rows[0]}${kept}`);
      const starts = paginate(rows.map((r) => heights[r]!));
      const pages: Page[] = starts.map((s, i) => ({ number: page + i, rows: rows.slice(s, starts[i + 1] ?? rows.length) }));
      if (part.last)
        return { data: Buffer.from(JSON.stringify(pages)), tableBreak: { pages: pages.length, keep: pages.length, restart: rows.length } };
      if (pages.length < 2) return undefined;
      const keep = pages.length - 1;
      const tableBreak = {
        pages: pages.length,
        keep,
        restart: starts[keep]!,
        ...(keep >= 2 ? { rowsOnPage: starts[keep]! - starts[keep - 1]! } : {}),
      };
      // As the bridge does: the break is told before the pages are exported.
      if (!options.silentBreaks) flow.broke?.(tableBreak);
      await new Promise((resolve) => setImmediate(resolve));
      return { data: Buffer.from(JSON.stringify(pages.slice(0, keep))), tableBreak };
    },
  } as unknown as Converter;
  const workers = {
    longTablePart: async (_split: LongTableSplit, xml: string) => Buffer.from(xml),
    longTableOdt: async () => ({ end: { last: '' } }),
    // An ODT part says what a DOCX part says, in the simulated office's terms.
    longTablePartOdt: async (split: LongTableSplit, _odt: unknown, from: number, to: number, page: number) =>
      Buffer.from(split.rows.slice(from, to).join('') + `w:start="${page}"`),
    joinPdfs: async (parts: Buffer[]) => Buffer.from(JSON.stringify(parts.flatMap((b) => JSON.parse(b.toString()) as Page[]))),
  } as unknown as DocumentWorkers;
  return { converter, workers, log, formats };
}

interface OfficeOptions {
  refuseHolds?: boolean;
  silentBreaks?: boolean;
  /** The rows have shapes (parts may be ODT), and the office converts the prototype or fails on it. */
  prototype?: 'converts' | 'fails';
  /** What precedes the table is plain text: the first part has a prototype too. */
  plainStart?: boolean;
}

function split(rows: number): LongTableSplit {
  return {
    parts: [],
    main: 'word/document.xml',
    head: '',
    before: '',
    after: '',
    tableStart: '<w:tbl>',
    headerRows: [],
    rows: Array.from({ length: rows }, (_, i) => `<w:tr>ROW ${i}</w:tr>`),
    sectPr: '<w:sectPr></w:sectPr>',
    tail: '',
    firstPage: 1,
    shapes: null,
    updateFields: true,
  };
}

async function laidOut(heights: number[], lanes: number, options: OfficeOptions = {}) {
  const { converter, workers, log, formats } = office(heights, options);
  const progress: number[] = [];
  const table = split(heights.length);
  if (options.prototype) table.shapes = { of: heights.map(() => 0), firsts: [0], prototype: 'p', first: options.plainStart ? 'f' : null };
  const out = await longTablePdf(table, { workers, converter, lanes, count: () => undefined, progress: (done) => progress.push(done) }, {});
  assert.ok(out);
  const pages = JSON.parse(out.pdf.toString()) as Page[];
  // One layout's pages, numbered 1, 2, 3, ...
  const starts = paginate(heights);
  assert.deepEqual(
    pages.map((p) => p.rows[0]),
    starts,
    'the pages start where one layout starts them',
  );
  assert.deepEqual(
    pages.map((p) => p.number),
    starts.map((_, i) => i + 1),
  );
  assert.deepEqual(
    pages.flatMap((p) => p.rows),
    heights.map((_, i) => i),
  );
  assert.deepEqual(
    progress,
    [...progress].sort((a, b) => a - b),
  );
  assert.equal(progress.at(-1), heights.length);
  return { parts: out.parts, log, formats };
}

/** A steady, repeatable mix of row heights (a pseudo-random walk, the same every run). */
const mixed = (n: number, pick: (i: number) => number) => Array.from({ length: n }, (_, i) => pick(i));

describe('a long table laid out in parts, planned against a simulated office', () => {
  it('has the pages of one layout with one process: every part in turn', async () => {
    const { log } = await laidOut(
      mixed(3000, (i) => [2, 2, 5, 2, 9][(i * 7919) % 5]!),
      1,
    );
    assert.ok(
      log.every((l) => l.startsWith('in turn')),
      log.join('\n'),
    );
    // A break learnt only from the part's answer does as well.
    await laidOut(
      mixed(3000, (i) => [2, 2, 5, 2, 9][(i * 7919) % 5]!),
      2,
      { silentBreaks: true },
    );
  });

  it('lays parts out ahead from before the break, whatever the rows, and keeps them', async () => {
    const before = { ...longTableParts };
    const { parts, log } = await laidOut(
      mixed(5000, (i) => [2, 2, 5, 2, 9, 3, 2][(i * 7919) % 7]!),
      2,
    );
    assert.ok(parts >= 6);
    assert.equal(log.filter((l) => l.startsWith('in turn')).length, 1, log.join('\n'));
    assert.equal(log.filter((l) => l.startsWith('ahead')).length, parts - 1);
    assert.equal(longTableParts.ahead - before.ahead, parts - 1);
    // Three processes: two parts ahead at once, each told where it starts in order.
    const three = await laidOut(
      mixed(5000, (i) => [2, 2, 5, 2, 9, 3, 2][(i * 7919) % 7]!),
      3,
    );
    assert.equal(three.log.filter((l) => l.startsWith('in turn')).length, 1, three.log.join('\n'));
  });

  it('begins parts ahead where pages begin when pages hold like rows, one page before the break: they keep their layout', async () => {
    const { parts, log } = await laidOut(
      mixed(5000, () => 3),
      2,
    );
    const kept = log.filter((l) => / kept \(\d+ rows before\)$/.test(l));
    // The first part ahead is made before any page is known; every later one begins a page.
    assert.ok(kept.length >= parts - 2, log.join('\n'));
    // Once a part after the first showed pages of like rows, they begin one page before the break.
    const perPage = Math.floor(CAPACITY / 3);
    assert.ok(
      kept.slice(1).every((l) => Number(/\((\d+) rows before\)/.exec(l)![1]) <= perPage),
      log.join('\n'),
    );
    // Rows of mixed heights: parts ahead begin a few pages before the break, and are kept only by chance.
    const mixedRows = await laidOut(
      mixed(5000, (i) => [2, 2, 5, 2, 9, 3, 2][(i * 7919) % 7]!),
      2,
    );
    assert.ok(mixedRows.log.filter((l) => l.startsWith('ahead')).length >= mixedRows.parts - 1);
  });

  it('drops a part ahead that began after the true break, and lays it out in turn', async () => {
    // Rows near the end of each part so tall that the part's last break comes long before its end:
    // the first part ahead begins after it.
    const heights = mixed(3000, (i) => (i >= 700 && i < 800 ? 60 : 2));
    const before = { ...longTableParts };
    const { log } = await laidOut(heights, 2);
    assert.ok(
      log.some((l) => l.startsWith('dropped')),
      log.join('\n'),
    );
    assert.ok(longTableParts.discarded > before.discarded);
    assert.ok(log.filter((l) => l.startsWith('in turn')).length >= 2, log.join('\n'));
  });

  it('lays out in turn when no spare process takes a part ahead', async () => {
    const { log } = await laidOut(
      mixed(2500, () => 3),
      2,
      { refuseHolds: true },
    );
    assert.ok(
      log.every((l) => l.startsWith('in turn')),
      log.join('\n'),
    );
  });

  it('stops at the output limit, and tells the parts still held to drop', async () => {
    const { converter, workers, log } = office(mixed(5000, () => 3));
    let parts = 0;
    const count = () => {
      if (++parts > 2) throw new Error('over the output limit');
    };
    await assert.rejects(longTablePdf(split(5000), { workers, converter, lanes: 2, count }, {}), /over the output limit/);
    await new Promise((resolve) => setImmediate(resolve));
    assert.ok(log.length < 8, `stopped early: ${log.join(' | ')}`);
  });

  it('reads parts from ODT when the rows have shapes (the first too when what precedes the table is plain), and from DOCX when the office fails on the prototype', async () => {
    const heights = mixed(3000, (i) => [2, 2, 5, 2, 9][(i * 7919) % 5]!);
    const odt = await laidOut(heights, 2, { prototype: 'converts' });
    assert.equal(odt.formats[0], 'docx', 'what precedes the table is more than plain text: the first part stays DOCX');
    assert.ok(odt.formats.length > 2 && odt.formats.slice(1).every((f) => f === 'odt'), odt.formats.join(' '));
    const docx = await laidOut(heights, 2, { prototype: 'fails' });
    assert.ok(
      docx.formats.every((f) => f === 'docx'),
      docx.formats.join(' '),
    );
    const plain = await laidOut(heights, 2, { prototype: 'converts', plainStart: true });
    assert.ok(
      plain.formats.every((f) => f === 'odt'),
      plain.formats.join(' '),
    );
  });
});
