// The one door (operations/door.ts) on a real SQLite store: each request kind's policy row decides
// what is counted and what holds a merge slot; every kind runs under the time limit and the abort.
// The operations are a stand-in that records its calls and can wait for ever (the door's rules,
// not documents, are under test here; test/operations/ runs the real operations).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { UsageGuard } from '../../src/accounts/usage.js';
import { DocumentPipeline } from '../../src/operations/io.js';
import { ForbiddenError, InputError, ProcessingTimeoutError } from '../../src/errors.js';
import { Door } from '../../src/operations/door/door.js';
import type { DocumentOperations, WorkContext } from '../../src/operations/index.js';
import { KINDS, type Kind } from '../../src/operations/kinds/index.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Account, Store } from '../../src/store/types.js';
import { TemplateLibrary } from '../../src/templates/library.js';
import { DEFAULT_MERGE_OPTIONS } from '../../src/merge/engine.js';
import { tempDir } from '../helpers/server.js';
import { Records } from '../../src/merge/records.js';

/** Resolves with `value`, or waits until the work's signal stops it. */
function until(ctx: WorkContext, wait: boolean, value: unknown): Promise<never> {
  if (!wait) return Promise.resolve(value as never);
  return new Promise((_, reject) => ctx.signal!.addEventListener('abort', () => reject(ctx.signal!.reason as Error), { once: true }));
}

describe('the one door', () => {
  let store: Store;
  let templates: TemplateLibrary;
  let usage: UsageGuard;
  const calls: string[] = [];
  let wait = false;
  const operations = {
    merge: (_input: unknown, ctx: WorkContext) => (calls.push('merge'), until(ctx, wait, [Buffer.from('doc')])),
    preview: (_input: unknown, ctx: WorkContext) => (calls.push('preview'), until(ctx, wait, [Buffer.from('png')])),
    thumbnails: (_input: unknown, ctx: WorkContext) => (calls.push('thumbnails'), until(ctx, wait, [Buffer.from('png')])),
    trackedChanges: (_document: Buffer, ctx: WorkContext) => (calls.push('trackedChanges'), until(ctx, wait, [])),
  } as unknown as DocumentOperations;
  const door = (limitMs: number | null = 60_000) =>
    new Door({
      usage,
      pipeline: new DocumentPipeline(templates, null, null, async (bytes) => bytes),
      operations,
      templates,
      processingLimitMs: limitMs,
    });
  const account = async (username: string): Promise<Account> =>
    store.accounts.create({
      username,
      passwordHash: 'scrypt$x',
      licence: 'SN-1',
      maxDocuments: 10,
      maxTemplates: 5,
      maxProofingTransactions: 10,
      validUntil: null,
    });
  const created = async (a: Account) => (await store.accounts.byId(a.id))!.createdDocuments;
  const merge = {
    kind: 'merge' as const,
    format: 'docx' as const,
    append: true,
    test: false,
    source: { bytes: Buffer.from('PK') },
    records: Records.of([{}]),
    options: DEFAULT_MERGE_OPTIONS,
    document: { properties: {}, password: undefined },
  };
  const preview = { ...merge, kind: 'preview' as const, view: { zoom: 100, fromPage: 1, toPage: 0, format: 'png' as const } };
  const pages = { kind: 'thumbnails' as const, source: { bytes: Buffer.from('%PDF'), format: 'pdf' as const }, view: preview.view };
  const review = { kind: 'trackedChanges' as const, document: Buffer.from('PK') };

  before(async () => {
    store = await openSqliteStore(path.join(tempDir(), 'door.sqlite'));
    templates = new TemplateLibrary(store);
    usage = new UsageGuard(store, { maxConcurrentMerges: 1, processingLimitMs: 60_000 });
  });
  after(() => store.close());

  it('has one policy row per request kind: what counts a document, what holds a merge slot', () => {
    const rows = Object.entries(KINDS) as [Kind, (typeof KINDS)[Kind]][];
    assert.deepEqual(
      rows.filter(([, row]) => row.counted).map(([kind]) => kind),
      ['merge', 'preview', 'findAndReplace', 'append', 'convert', 'thumbnails'],
    );
    assert.deepEqual(
      rows.filter(([, row]) => row.slot).map(([kind]) => kind),
      ['merge', 'preview'],
    );
    // What the door finishes (signing, e-invoices) and what may wait as a job: said by the row alone.
    assert.deepEqual(
      rows.filter(([, row]) => 'pdf' in row).map(([kind]) => kind),
      ['merge', 'findAndReplace', 'append', 'convert'],
    );
    assert.deepEqual(
      rows.filter(([, row]) => 'job' in row).map(([kind]) => kind),
      ['merge', 'append', 'convert'],
    );
  });

  it('counts counted kinds once delivered, and nothing for the others or for test runs', async () => {
    const ann = await account('ann');
    const answer = await door().perform(ann, merge);
    assert.deepEqual(answer, { documents: [Buffer.from('doc')], list: true, headers: {} });
    await door().perform(ann, pages);
    await door()
      .perform(ann, { ...merge, test: true })
      .catch(() => undefined); // SN-1 allows no test runs: refused, not counted
    assert.deepEqual(await door().perform(ann, review), []);
    assert.equal(await created(ann), 2);
    // A delivery that fails (the client left) refunds the document.
    await assert.rejects(
      door().perform(ann, merge, {
        deliver: async () => {
          throw new Error('gone');
        },
      }),
      /gone/,
    );
    assert.equal(await created(ann), 2);
  });

  it('stops every kind at the time limit, counted or not, and tells the work through its signal', async () => {
    const bob = await account('bob');
    wait = true;
    try {
      for (const request of [review, pages, merge] as const) {
        // Work that never ends meets any limit.
        await assert.rejects(door(50).perform(bob, request), ProcessingTimeoutError, request.kind);
      }
    } finally {
      wait = false;
    }
    assert.equal(await created(bob), 0, 'work stopped is not counted');
  });

  it('stops work when the caller cancels it (a deleted job), and holds a merge slot only for merge kinds', async () => {
    const cara = await account('cara');
    wait = true;
    const cancel = new AbortController();
    try {
      const running = door().perform(cara, preview, { signal: cancel.signal });
      // The one slot is taken: a second merge kind is refused, a thumbnail request is not.
      await assert.rejects(door().perform(cara, merge), (error: unknown) => (error as ForbiddenError).refusal === 'merge_slots');
      wait = false;
      await door().perform(cara, pages);
      wait = true;
      cancel.abort(new Error('the job was deleted'));
      await assert.rejects(running, /the job was deleted/);
      const review2 = door(null).perform(null, review, { signal: AbortSignal.abort(new Error('stopped')) });
      await assert.rejects(review2, /stopped/);
    } finally {
      wait = false;
    }
    await door().perform(cara, merge); // the slot was given back
  });

  it('runs without an account (the CLI, share links): nothing counted, no stored template can be named', async () => {
    calls.length = 0;
    await door(null).perform(null, merge);
    await door(null).perform(null, pages);
    assert.deepEqual(calls, ['merge', 'thumbnails']);
    await assert.rejects(door(null).perform(null, { ...merge, source: { templateName: 'invoice.docx' } }), InputError);
    await assert.rejects(door(null).perform(null, { kind: 'pageCount', source: { templateName: 'invoice.docx' } }), InputError);
  });
});
