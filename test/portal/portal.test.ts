/// <reference lib="dom" />
// (page.evaluate callbacks run in the browser)
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { FIXTURES, ROOT, tempDir } from '../helpers/server.js';
import { serverWithAccounts } from '../helpers/accounts.js';
import { pdfText } from '../../src/formats/pdf.js';
import { block, cell, docx, mergefield, p, row, run, table } from '../helpers/docx.js';

// End to end in Debian's Chromium (installed by `npm test` as root): sign in, upload, merge, preview.
const CHROMIUM = process.env.DOCSMITH_CHROMIUM ?? '/usr/bin/chromium';
const SHOTS = path.join(ROOT, '.test-output', 'portal');
const skip =
  process.env.DOCSMITH_BROWSER_TESTS === '0'
    ? 'DOCSMITH_BROWSER_TESTS=0'
    : !fs.existsSync(CHROMIUM)
      ? `no browser at ${CHROMIUM}: apt-get install chromium`
      : false;

const invoice = docx(
  p(run('Invoice for '), mergefield('customer.name'), run(', dated '), mergefield('date', '\\@ "d MMMM yyyy"')) +
    table(
      row(cell(p(run('Item'))), cell(p(run('Price')))),
      block('items', row(cell(p(mergefield('name'))), cell(p(mergefield('price', '\\# "#,##0.00"'))))),
    ) +
    p(run('Total: '), mergefield('total', '\\# "#,##0.00"')),
);

describe('web portal in Chromium', { skip }, () => {
  let env: Awaited<ReturnType<typeof serverWithAccounts>>;
  let browser: Browser;
  let files: string;
  let apiKey = '';
  before(async () => {
    env = await serverWithAccounts({ ann: { licence: 'SN-PORTAL' }, newbie: { licence: 'TRIAL' } }, { DOCSMITH_OFFICE_PROCESSES: '1' });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-dev-shm-usage',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    fs.mkdirSync(SHOTS, { recursive: true });
    files = tempDir('docsmith-portal-');
    fs.writeFileSync(path.join(files, 'invoice.docx'), invoice);
    fs.writeFileSync(path.join(files, 'broken.docx'), Buffer.from('PK\x03\x04 this is not a document'));
    fs.writeFileSync(path.join(files, 'notes.txt'), 'hello');
  });
  after(async () => {
    await browser?.close();
    await env?.close();
  });

  async function open(context: BrowserContext, route = '/portal/'): Promise<Page> {
    const page = await context.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
    await page.goto(`${env.server.url}${route}`);
    return page;
  }

  async function signIn(page: Page, user: string, password: string): Promise<void> {
    await page.getByLabel('User name').fill(user);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  const loaded = (page: Page, selector: string) =>
    page.waitForFunction(
      (s) => {
        const image = document.querySelector<HTMLImageElement>(s);
        return !!image && image.complete && image.naturalWidth > 0;
      },
      selector,
      { timeout: 60_000 },
    );

  const noSideScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

  it('signs in, uploads, shows the template, merges with a live preview, downloads, manages keys', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.server.url });
    const page = await open(context);

    await signIn(page, 'ann', 'wrong password');
    await assert.doesNotReject(page.getByRole('alert').filter({ hasText: 'The user name or password is not right.' }).waitFor());
    await signIn(page, 'ann', 'pw-ann-secret');
    await page.getByRole('heading', { name: 'Templates' }).waitFor();

    // Upload: a fixture, the generated invoice, and two bad files whose errors are words, not JSON.
    const upload = page.getByLabel('Upload templates');
    await upload.setInputFiles(path.join(files, 'notes.txt'));
    await page.getByRole('alert').filter({ hasText: '"notes.txt" is not a template: upload DOCX, DOC, RTF or TX files.' }).waitFor();
    await upload.setInputFiles(path.join(files, 'broken.docx'));
    const brokenMessage = await page.getByRole('alert').textContent();
    assert.ok(brokenMessage && !/[{}]/.test(brokenMessage) && /broken\.docx|template|document/i.test(brokenMessage), brokenMessage ?? '');
    await upload.setInputFiles([path.join(FIXTURES, 'resource', 'test_template.docx'), path.join(files, 'invoice.docx')]);
    await page.getByText('Uploaded test_template.docx, invoice.docx.').waitFor();
    await loaded(page, 'img[alt="First page of invoice.docx"]');
    await loaded(page, 'img[alt="First page of test_template.docx"]');
    await page.screenshot({ path: path.join(SHOTS, 'library.png'), fullPage: true });

    // Keyboard focus on the hidden file inputs shows on their drop zone and their button.
    const tabTo = async (label: string) => {
      for (let i = 0; i < 60; i++) {
        await page.keyboard.press('Tab');
        if (await page.evaluate((l) => document.activeElement?.getAttribute('aria-label') === l, label)) return;
      }
      assert.fail(`Tab never reached "${label}"`);
    };
    const outlineOfHolder = () =>
      page.evaluate(() => {
        const holder = document.activeElement!.closest('label')!;
        const style = getComputedStyle(holder);
        return `${style.outlineStyle} ${style.outlineWidth}`;
      });
    await page.getByRole('heading', { name: 'Templates' }).click();
    await tabTo('Upload templates');
    assert.equal(await outlineOfHolder(), 'solid 3px');
    await page.screenshot({ path: path.join(SHOTS, 'focus-upload.png') });
    await tabTo('Replace invoice.docx');
    assert.equal(await outlineOfHolder(), 'solid 3px');
    await page.screenshot({ path: path.join(SHOTS, 'focus-replace.png') });

    // Drag and drop, replace, delete.
    await page.evaluate(
      ({ name, data }) => {
        const transfer = new DataTransfer();
        transfer.items.add(new File([Uint8Array.from(atob(data), (c) => c.charCodeAt(0))], name));
        const zone = document.querySelector('.dropzone')!;
        for (const type of ['dragover', 'drop'])
          zone.dispatchEvent(new DragEvent(type, { dataTransfer: transfer, bubbles: true, cancelable: true }));
      },
      { name: 'dropped.docx', data: fs.readFileSync(path.join(FIXTURES, 'resource', 'test_template.docx')).toString('base64') },
    );
    await page.getByText('Uploaded dropped.docx.').waitFor();
    const dropped = page.locator('li[data-template="dropped.docx"]');
    await loaded(page, 'img[alt="First page of dropped.docx"]');
    const before = await dropped.locator('img').getAttribute('src');
    await page.getByLabel('Replace dropped.docx').setInputFiles(path.join(FIXTURES, 'resource', 'sample_docx.docx'));
    await page.getByText('Replaced dropped.docx.').waitFor();
    await page.waitForFunction(
      (old) => {
        const image = document.querySelector<HTMLImageElement>('img[alt="First page of dropped.docx"]');
        return !!image && image.getAttribute('src') !== old && image.complete && image.naturalWidth > 0;
      },
      before,
      { timeout: 60_000 },
    );
    await dropped.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('Deleted dropped.docx.').waitFor();
    await dropped.waitFor({ state: 'detached' });

    const [original] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('li[data-template="invoice.docx"]').getByRole('button', { name: 'Download' }).click(),
    ]);
    assert.ok(fs.readFileSync((await original.path())!).equals(invoice), 'the library downloads the stored bytes');

    // Detail: the fields and blocks tree and the page previews.
    await page.getByRole('link', { name: 'Open invoice.docx' }).click();
    const tree = page.getByLabel('Fields and blocks');
    await tree.getByText('customer.name').waitFor();
    await tree.getByText('items').waitFor();
    await tree.getByText('#,##0.00').first().waitFor();
    await loaded(page, 'img[alt="invoice.docx, page 1"]');
    assert.match(
      String(await page.locator('img[alt="invoice.docx, page 1"]').getAttribute('src')),
      /^blob:/,
      "pages load with the user's credentials",
    );
    // One throwaway link, revoked from the list; then the one shared below.
    await page.getByLabel('Link lasts').selectOption('1');
    await page.getByRole('button', { name: 'Share a preview link' }).click();
    await page.locator('input.share-url').waitFor();
    const revokedUrl = await page.getByLabel('Preview link').inputValue();
    const linkList = page.getByLabel('Share links');
    await linkList.getByRole('button', { name: 'Revoke' }).first().click();
    await page.getByText('The link is revoked').waitFor();
    assert.equal(
      (await fetch(revokedUrl.replace(/^.*\/share\//, `${env.server.url}/share/`), { redirect: 'manual' })).status,
      404,
      'a revoked link opens nothing',
    );
    await page.getByLabel('Link lasts').selectOption('7');
    await page.getByRole('button', { name: 'Share a preview link' }).click();
    await page.waitForFunction((old) => document.querySelector<HTMLInputElement>('input.share-url')?.value !== old, revokedUrl);
    const shareUrl = await page.getByLabel('Preview link').inputValue();
    assert.match(shareUrl, /\/share\/[\w-]{43}$/);
    await linkList.getByRole('button', { name: 'Revoke' }).waitFor();
    assert.equal(await linkList.getByRole('listitem').count(), 1, 'only the link made on purpose: the library made none');
    await page.screenshot({ path: path.join(SHOTS, 'template.png'), fullPage: true });

    // Playground: sample data from the fields and blocks, a live preview (test runs: not counted).
    await page.getByRole('link', { name: 'Merge data into it' }).click();
    const editor = page.locator('.cm-content');
    await editor.getByText('"customer"').waitFor();
    assert.match(await editor.innerText(), /"items": \[/);
    await loaded(page, '.preview[data-fresh="true"] img[alt="Preview, page 1"]');
    await editor.click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.insertText(
      '[{"customer": {"name": "ACME Ltd"}, "date": "2026-11-22", "items": [{"name": "Bolt", "price": 1234.5}], "total": }]',
    );
    await page.getByRole('alert').filter({ hasText: 'The data is not valid JSON' }).waitFor();
    assert.match(await page.getByRole('alert').filter({ hasText: 'not valid JSON' }).innerText(), /line 1, column \d+/);
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.insertText('1234.5');
    await page.getByText('Valid: 1 record.').waitFor();
    await loaded(page, '.preview[data-fresh="true"] img[alt="Preview, page 1"]');
    await page.screenshot({ path: path.join(SHOTS, 'playground.png'), fullPage: true });

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Merge and download PDF' }).click(),
    ]);
    assert.equal(download.suggestedFilename(), 'invoice.pdf');
    assert.match(
      await pdfText(fs.readFileSync((await download.path())!)),
      /Invoice for ACME Ltd, dated 22 November 2026[\s\S]*Bolt\s+1,234.50/,
    );
    await page.getByText('Merged 1 document as PDF.').waitFor();

    // Settings reach the preview and the merge: Swiss German numbers, a culture typed (any the server knows).
    await page.getByLabel('Culture').fill('de-CH');
    await page.getByLabel('Culture').press('Tab');
    await page.getByText('Merge settings').click();
    await page.getByLabel('Remove trailing white space').uncheck();
    await loaded(page, '.preview[data-fresh="true"] img[alt="Preview, page 1"]');
    const [german] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Merge and download PDF' }).click(),
    ]);
    assert.match(await pdfText(fs.readFileSync((await german.path())!)), /Bolt\s+1['’]234\.50/);
    // A signed PDF is asked for: the operator has not granted this account signing, and the page says so.
    await page.getByLabel('Signature').selectOption({ label: 'Signed, with a stamp' });
    await page.getByRole('button', { name: 'Merge and download PDF' }).click();
    await page.getByText(/This account may not sign PDFs/).waitFor();
    await page.getByLabel('Signature').selectOption({ label: 'As the account says' });
    // An accessible (tagged PDF/UA) document, asked for in the page.
    await page.getByLabel('Accessible (PDF/UA)').check();
    const [tagged] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Merge and download PDF' }).click(),
    ]);
    assert.match(fs.readFileSync((await tagged.path())!).toString('latin1'), /pdfuaid:part>1</);
    await page.getByLabel('Accessible (PDF/UA)').uncheck();
    // An e-invoice is asked for; the record has no invoice data, and the page says what is missing.
    await page.getByLabel('E-invoice (Factur-X)').check();
    await page.getByRole('button', { name: 'Merge and download PDF' }).click();
    await page.getByText(/The e-invoice of record 1 cannot be made: number is missing/).waitFor();
    await page.getByLabel('E-invoice (Factur-X)').uncheck();

    // Keys typed at machine speed (no delay, then 30 ms apart) never lock the tab in a render
    // loop, and the editor keeps every one of them.
    for (const delay of [0, 30]) {
      await editor.click();
      await page.keyboard.press('ControlOrMeta+a');
      const typed = Array.from({ length: 12 }, (_, i) => `fast typing ${i}`).join(' ');
      await page.keyboard.type(typed, { delay });
      const answers = await Promise.race([
        page.evaluate(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 5000)),
      ]);
      assert.equal(answers, true, `the page answers after typing with ${delay} ms between keys`);
      await page.waitForFunction((text) => document.querySelector('.cm-content')?.textContent === text, typed, { timeout: 5000 });
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(await editor.innerText(), typed, 'nothing typed is lost or replaced afterwards');
    }

    // Usage: the three downloads counted; the previews were test runs.
    await page.getByRole('link', { name: 'Usage' }).click();
    await page.getByText('3 of 1,000,000').waitFor();
    // The account's activity: the upload made above, by the password, from this browser's address.
    const activity = page.getByRole('region', { name: 'Recent activity' });
    await activity.getByRole('cell', { name: 'template uploaded' }).first().waitFor();
    assert.match(await activity.innerText(), /template uploaded\s+password\s+127\.0\.0\.1\s+invoice\.docx/);
    await page.screenshot({ path: path.join(SHOTS, 'usage.png'), fullPage: true });

    // API keys: create with a name (shown in full once), list masked with dates, rename, revoke.
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Name (optional)').fill('Nightly export');
    await page.getByRole('button', { name: 'Create a key' }).click();
    const fresh = page.getByLabel('The new key');
    apiKey = (await fresh.locator('code').innerText()).trim();
    assert.match(apiKey, /^\S{20,}$/);
    const keys = page.getByRole('list', { name: 'API keys' });
    // Found by its ends: its name is in a text box while it is renamed.
    const first = keys.locator('li').filter({ hasText: `${apiKey.slice(0, 4)}…${apiKey.slice(-4)}` });
    await first.waitFor();
    assert.match(await first.innerText(), /Nightly export/);
    assert.match(await first.innerText(), /last used never/);
    await fresh.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied the key.').waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), apiKey);
    await fresh.getByRole('button', { name: 'Done' }).click();
    await fresh.waitFor({ state: 'detached' });
    assert.equal(await page.getByText(apiKey).count(), 0, 'the full key is gone from the page');
    await page.getByLabel('May do').selectOption({ label: 'Read templates only' });
    await page.getByRole('button', { name: 'Create a key' }).click();
    await keys.locator('li').nth(1).waitFor();
    assert.match(await keys.locator('li').filter({ hasText: 'No name' }).innerText(), /Read templates only/);
    // The first key signs a request in: its last use shows after a reload.
    const used = await fetch(`${env.server.url}/v1/templates/count`, { headers: { authorization: `ReportingCloud-APIKey ${apiKey}` } });
    assert.equal(used.status, 200);
    await page.reload();
    await first.waitFor();
    assert.doesNotMatch(await first.innerText(), /last used never/);
    await first.getByRole('button', { name: 'Rename' }).click();
    await first.getByLabel('Name').fill('Weekly export');
    await first.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Renamed the key.').waitFor();
    await keys.locator('li').filter({ hasText: 'Weekly export' }).waitFor();
    await page.screenshot({ path: path.join(SHOTS, 'keys.png'), fullPage: true });
    await keys.locator('li').filter({ hasText: 'No name' }).getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('Revoked the key.').waitFor();
    await keys.locator('li').nth(1).waitFor({ state: 'detached' });
    assert.equal(await keys.locator('li').count(), 1);

    // Convert: a document to PDF.
    await page.getByRole('link', { name: 'Append & convert' }).click();
    await page.getByLabel('Document to convert').setInputFiles(path.join(FIXTURES, 'resource', 'test_document.docx'));
    const [converted] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Convert and download' }).click(),
    ]);
    assert.equal(converted.suggestedFilename(), 'test_document.pdf');
    await page
      .getByLabel('Documents to append')
      .setInputFiles([path.join(FIXTURES, 'resource', 'test_document.docx'), path.join(FIXTURES, 'resource', 'sample_docx.docx')]);
    await page.getByLabel('Move sample_docx.docx up').click();
    await page.getByLabel('How test_document.docx follows the document before it').selectOption('NewParagraph');
    await page.locator('section[aria-labelledby="append-title"]').getByLabel('Format').selectOption('TXT');
    const [appended] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Append and download' }).click(),
    ]);
    assert.equal(appended.suggestedFilename(), 'appended.txt');
    assert.match(
      fs.readFileSync((await appended.path())!, 'utf8'),
      /[\s\S]+\r?\nA Test File\r?\n$/,
      'sample_docx first, then test_document in a new paragraph',
    );
    await page.screenshot({ path: path.join(SHOTS, 'tools.png'), fullPage: true });

    // The share link works without credentials, in a fresh browser context.
    const stranger = await browser.newContext({ viewport: { width: 1024, height: 800 } });
    const shared = await stranger.newPage();
    await shared.goto(shareUrl);
    await shared.getByRole('heading', { name: 'invoice.docx' }).waitFor();
    await loaded(shared, 'img[alt="invoice.docx, page 1"]');
    await shared.screenshot({ path: path.join(SHOTS, 'share.png'), fullPage: true });
    await stranger.close();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to docsmith' }).waitFor();
    await context.close();
  });

  it('offers a new account the sample invoice: stored, in the playground with its data, merged', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    const page = await open(context);
    await signIn(page, 'newbie', 'pw-newbie-secret');
    await page.getByRole('button', { name: 'Try the sample invoice' }).click();
    await page.getByRole('heading', { name: 'Merge playground' }).waitFor();
    await page.getByText('yourcompany_companyname').first().waitFor();
    // A trial account's previews count as documents: shown when asked for.
    await page.getByRole('button', { name: 'Preview', exact: true }).click();
    await loaded(page, '.preview[data-fresh="true"] img[alt="Preview, page 1"]');
    await page.screenshot({ path: path.join(SHOTS, 'sample.png') });
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Merge and download PDF' }).click(),
    ]);
    assert.match(await pdfText(fs.readFileSync((await download.path())!)), /Invoice number #778723[\s\S]*Item description 2/);
    await context.close();
  });

  it('stores templates typed as docxtemplater tags when chosen on upload: their tags are the fields, merged in the playground', async () => {
    fs.writeFileSync(
      path.join(files, 'typed.docx'),
      docx(p(run('Hello {customer}')) + p(run('{#items}')) + p(run('- {name}')) + p(run('{/items}'))),
    );
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    const page = await open(context);
    await signIn(page, 'ann', 'pw-ann-secret');
    await page.getByRole('heading', { name: 'Templates' }).waitFor();
    await page.getByLabel('How the templates mark their data').selectOption('docxtemplater');
    await page.getByLabel('Upload templates').setInputFiles(path.join(files, 'typed.docx'));
    await page.getByText('Uploaded typed.docx.').waitFor();
    await page.goto(`${env.server.url}/portal/playground/typed.docx`);
    const editor = page.locator('.cm-content');
    await editor.getByText('"customer"').waitFor();
    assert.match(await editor.innerText(), /"items": \[/);
    await editor.click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.insertText('[{"customer": "ACME Ltd", "items": [{"name": "Bolt"}, {"name": "Nut"}]}]');
    await page.getByText('Valid: 1 record.').waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Merge and download PDF' }).click(),
    ]);
    assert.match(await pdfText(fs.readFileSync((await download.path())!)), /Hello ACME Ltd\s+- Bolt\s+- Nut/);
    await context.close();
  });

  it("shows a template's versions with their dates and fields, and rolls back to one", async () => {
    const auth = { authorization: `Basic ${Buffer.from('ann:pw-ann-secret').toString('base64')}`, 'content-type': 'application/json' };
    const upload = async (bytes: Buffer) =>
      assert.equal(
        (
          await fetch(`${env.server.url}/v1/templates/upload?templateName=letter-versions.docx`, {
            method: 'POST',
            headers: auth,
            body: JSON.stringify(bytes.toString('base64')),
          })
        ).status,
        201,
      );
    await upload(docx(p(run('Dear '), mergefield('name'))));
    await upload(docx(p(run('Dear '), mergefield('title'), mergefield('name'))));
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await open(context, '/portal/templates/letter-versions.docx');
    await signIn(page, 'ann', 'pw-ann-secret');
    const versions = page.getByRole('region', { name: 'Versions' });
    await versions.getByText('Version 2').waitFor();
    const first = versions.getByRole('listitem').filter({ hasText: 'Version 1' });
    assert.match(await first.innerText(), /fields against the current: now also title/);
    assert.match(await versions.getByRole('listitem').first().innerText(), /Version 2 · .* · current/);
    await page.screenshot({ path: path.join(SHOTS, 'versions.png'), fullPage: true });
    await first.getByRole('button', { name: 'Roll back to this' }).click();
    await page.getByText('Version 1 is current again, as version 3.').waitFor();
    await versions.getByText('Version 3').waitFor();
    assert.match(await versions.getByRole('listitem').first().innerText(), /Version 3 · .* · current/);
    await context.close();
  });

  it('reviews: spelling with suggestions, tracked changes accepted one by one, the fonts of the server', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    const page = await open(context, '/portal/review');
    await signIn(page, 'ann', 'pw-ann-secret');
    await page.getByRole('heading', { name: 'Review', exact: true }).waitFor();
    await page.getByLabel('Text to check').fill('This sentense has a mistake.');
    await page.getByRole('button', { name: 'Check spelling' }).click();
    const mistakes = page.getByRole('list', { name: 'Spelling mistakes' });
    await mistakes.getByText('sentense').waitFor();
    assert.match((await mistakes.textContent()) ?? '', /sentense.*sentence/);
    // The SDK's document with two insertions: accept one, reject the other, download the result.
    await page.getByLabel('Document with tracked changes').setInputFiles(path.join(FIXTURES, 'resource', 'tracked_changes.docx'));
    const changes = page.getByRole('list', { name: 'Tracked changes' });
    await changes.getByRole('listitem').first().waitFor();
    assert.equal(await changes.getByRole('listitem').count(), 2);
    await changes.getByRole('button', { name: 'Accept' }).first().click();
    await page.getByText(/^Accepted the change/).waitFor();
    assert.equal(await changes.getByRole('listitem').count(), 1);
    await changes.getByRole('button', { name: 'Reject' }).first().click();
    await page.getByText('No tracked changes left.').waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download the document' }).click(),
    ]);
    assert.equal(download.suggestedFilename(), 'tracked_changes.docx');
    await page.getByLabel('Find a font').fill('liberation');
    await page.getByRole('list', { name: 'Fonts' }).getByText('Liberation Sans', { exact: true }).waitFor();
    await page.screenshot({ path: path.join(SHOTS, 'review.png'), fullPage: true });
    await context.close();
  });

  it('shares the sign-in with the other tabs while one is open, and signs them all out together', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const first = await open(context);
    await signIn(first, 'ann', 'pw-ann-secret');
    await first.getByRole('heading', { name: 'Templates' }).waitFor();
    // A second tab asks the first: signed in without a form.
    const second = await open(context, '/portal/keys');
    await second.getByRole('heading', { name: 'API keys' }).waitFor();
    assert.equal(await second.getByLabel('Password').count(), 0);
    // Signing out in one signs out both; nothing is kept for a tab opened afterwards.
    await second.getByRole('button', { name: 'Sign out' }).click();
    await first.getByLabel('Password').waitFor();
    await second.getByLabel('Password').waitFor();
    const third = await open(context);
    await third.getByLabel('Password').waitFor();
    await context.close();
  });

  it('lays controls out as they read: a skip link first, whole labels and choices, a check box beside its words, a field once', async () => {
    const auth = { authorization: `Basic ${Buffer.from('ann:pw-ann-secret').toString('base64')}`, 'content-type': 'application/json' };
    const headed = docx(p(run('Dear '), mergefield('name')), { header: p(run('For '), mergefield('name')) });
    const uploaded = await fetch(`${env.server.url}/v1/templates/upload?templateName=headed.docx`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify(headed.toString('base64')),
    });
    assert.equal(uploaded.status, 201);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await open(context, '/portal/keys');
    await signIn(page, 'ann', 'pw-ann-secret');
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    // The keyboard meets the skip link before the eight navigation links; it leads to the content.
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent?.trim()), 'Skip to the content');
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'content');
    const layout = await page.evaluate(() => {
      const select = document.querySelector<HTMLSelectElement>('select[name="keyScope"]')!;
      const probe = document.createElement('span');
      probe.style.font = getComputedStyle(select).font;
      probe.textContent = Array.from(select.options, (o) => o.text).sort((a, b) => b.length - a.length)[0]!;
      document.body.append(probe);
      const needed = probe.getBoundingClientRect().width;
      probe.remove();
      const optional = Array.from(document.querySelectorAll('label .muted')).find((e) => e.textContent === '(optional)')!;
      return {
        needed,
        room: select.clientWidth - parseFloat(getComputedStyle(select).paddingLeft) - parseFloat(getComputedStyle(select).paddingRight),
        sameLine: Math.abs(optional.getBoundingClientRect().top - optional.parentElement!.getBoundingClientRect().top) < 2,
      };
    });
    assert.ok(layout.room >= layout.needed, `the scope's longest choice needs ${layout.needed} px, has ${layout.room}`);
    assert.ok(layout.sameLine, '"(optional)" on the line of "Name"');
    await page.goto(`${env.server.url}/portal/tools`);
    const box = page.getByRole('checkbox', { name: 'In the background' }).first();
    await box.waitFor();
    const [check, words] = await Promise.all([box.boundingBox(), page.locator('label', { has: box }).first().boundingBox()]);
    assert.ok(
      check && words && check.y + check.height / 2 > words.y && check.y + check.height / 2 < words.y + words.height,
      'beside its words',
    );
    assert.ok(words!.height < 40, `one line: ${words!.height} px high`);
    await page.goto(`${env.server.url}/portal/templates/headed.docx`);
    const fields = page.getByLabel('Fields and blocks');
    await fields.getByText('name', { exact: true }).first().waitFor();
    assert.equal(await fields.getByText('name', { exact: true }).count(), 1, 'in the header and the body, listed once');
    await context.close();
  });

  it('works at 360 px wide, signed in with an API key', async () => {
    assert.ok(apiKey, 'the first test made a key');
    const context = await browser.newContext({
      viewport: { width: 360, height: 740 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    });
    const page = await open(context);
    await page.getByRole('tab', { name: 'API key' }).click();
    await page.getByLabel('API key').fill('not-a-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'This API key was not accepted.' }).waitFor();
    await page.getByLabel('API key').fill(apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Templates' }).waitFor();
    await loaded(page, 'img[alt="First page of invoice.docx"]');
    assert.ok(await noSideScroll(page), 'the library fits 360 px');
    await page.screenshot({ path: path.join(SHOTS, 'library-360.png'), fullPage: true });

    await page.goto(`${env.server.url}/portal/playground/invoice.docx`);
    await loaded(page, 'img[alt="Preview, page 1"]');
    assert.ok(await noSideScroll(page), 'the playground fits 360 px');
    await page.screenshot({ path: path.join(SHOTS, 'playground-360.png'), fullPage: true });

    for (const route of [
      '/portal/templates/invoice.docx',
      '/portal/keys',
      '/portal/usage',
      '/portal/tools',
      '/portal/jobs',
      '/portal/review',
    ]) {
      await page.goto(`${env.server.url}${route}`);
      await page.getByRole('heading').first().waitFor();
      await page.waitForLoadState('networkidle');
      assert.ok(await noSideScroll(page), `${route} fits 360 px`);
    }
    await context.close();
  });

  it('converts in the background and follows the job to its download', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    const page = await open(context, '/portal/tools');
    await signIn(page, 'ann', 'pw-ann-secret');
    await page.getByRole('heading', { name: 'Append and convert' }).waitFor();
    const convert = page.getByRole('region', { name: 'Convert' });
    await convert.getByLabel('Document to convert').setInputFiles(path.join(files, 'invoice.docx'));
    await convert.getByLabel('In the background').check();
    await convert.getByRole('button', { name: 'Convert in the background' }).click();
    await convert
      .getByRole('status')
      .filter({ hasText: /Queued job/ })
      .waitFor();
    await convert.getByRole('link', { name: 'Jobs' }).click();
    await page.getByRole('heading', { name: 'Jobs' }).waitFor();
    const job = page.getByRole('list', { name: 'Jobs' }).getByRole('listitem').first();
    // The page follows the job by itself until it is done.
    await job.getByRole('button', { name: 'Download' }).waitFor({ timeout: 60_000 });
    assert.match((await job.textContent()) ?? '', /convert.*1 document to PDF.*done.*\d KB · kept until/);
    const [download] = await Promise.all([page.waitForEvent('download'), job.getByRole('button', { name: 'Download' }).click()]);
    assert.match(download.suggestedFilename(), /^convert-[0-9a-f]{8}\.pdf$/);
    const pdf = fs.readFileSync(await download.path());
    assert.match(await pdfText(pdf), /Invoice for/);
    await page.screenshot({ path: path.join(SHOTS, 'jobs.png'), fullPage: true });
    await job.getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('status').filter({ hasText: 'Removed the job.' }).waitFor();
    await context.close();
  });

  it('serves the portal with a strict content security policy, and unknown share links say so', async () => {
    const reply = await fetch(`${env.server.url}/portal/keys`);
    assert.equal(reply.status, 200);
    assert.match(reply.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    assert.equal((await fetch(`${env.server.url}/portal/assets/gone-1234.js`)).status, 404);
    assert.equal((await fetch(`${env.server.url}/`, { redirect: 'manual' })).headers.get('location'), '/portal/');
    const context = await browser.newContext();
    const page = await open(context, '/portal/share/not-a-token');
    await page.getByRole('alert').filter({ hasText: 'This preview link is not valid' }).waitFor();
    await context.close();
  });
});
