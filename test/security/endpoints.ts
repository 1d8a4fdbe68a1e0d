import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { confiningSandboxes } from '../../src/office/sandbox.js';
import { serverWithAccounts } from '../helpers/accounts.js';
import type { Client } from '../helpers/http.js';
import { tempDir } from '../helpers/server.js';
import { everyHostileDocument, leaked, plantSecrets, secretShareInPng, type Hostile, type Secrets } from '../helpers/hostile.js';

/**
 * Every endpoint that hands a document to the office, against a server in one deployment the
 * README describes: bubblewrap (a host), Landlock (the container image), none (`off`). One test
 * file per deployment (endpoints-*.test.ts), so each stays well inside the per-file limit.
 */
export function everyEndpointReadsNothing(sandbox: 'bubblewrap' | 'landlock' | 'off'): void {
  const skip = sandbox !== 'off' && !confiningSandboxes().includes(sandbox) && `${sandbox} cannot run on this machine`;
  describe(`every endpoint that hands a document to the office (sandbox: ${sandbox})`, { skip }, () => {
    let secrets: Secrets;
    let documents: Hostile[];
    let env: Awaited<ReturnType<typeof serverWithAccounts>>;
    let c: Client;
    before(async () => {
      secrets = plantSecrets(tempDir('docsmith-secrets-'));
      documents = everyHostileDocument(secrets);
      env = await serverWithAccounts({ ann: { licence: 'SN-SEC' } }, { DOCSMITH_OFFICE_PROCESSES: '1', DOCSMITH_OFFICE_SANDBOX: sandbox });
      c = env.clients.ann!;
    });
    after(() => env?.close());

    const b64 = (b: Buffer) => b.toString('base64');
    const pdfOf = (reply: { status: number; text: string; json(): unknown }, what: string) => {
      assert.equal(reply.status, 200, `${what}: ${reply.text.slice(0, 300)}`);
      return Buffer.from(reply.json() as string, 'base64');
    };

    it('convert, merge, append, thumbnails and stored templates read no local file', async () => {
      for (const document of documents) {
        const what = document.name;
        assert.equal(
          leaked(pdfOf(await c.post('/v1/document/convert?returnFormat=PDF', { json: b64(document.bytes) }), `convert ${what}`)),
          undefined,
          `convert ${what}`,
        );
        const docx = Buffer.from(
          (await c.post('/v1/document/convert?returnFormat=DOCX', { json: b64(document.bytes) })).json() as string,
          'base64',
        );
        assert.ok(!docx.includes(fs.readFileSync(secrets.png)), `convert to DOCX ${what}: the picture's bytes are in the package`);
        const shots = (
          await c.post('/v1/document/thumbnails?zoomFactor=50&imageFormat=PNG', { json: b64(document.bytes) })
        ).json() as string[];
        for (const shot of shots) assert.equal(secretShareInPng(Buffer.from(shot, 'base64')), 0, `thumbnails ${what}`);
        const appended = await c.post('/v1/document/append?returnFormat=PDF', { json: { documents: [{ document: b64(document.bytes) }] } });
        assert.equal(leaked(pdfOf(appended, `append ${what}`)), undefined, `append ${what}`);
        if (document.format !== 'html') {
          const merged = await c.post('/v1/document/merge?returnFormat=PDF', { json: { mergeData: [{}], template: b64(document.bytes) } });
          assert.equal(leaked((merged.json() as string[]).map((d) => Buffer.from(d, 'base64'))[0]!), undefined, `merge ${what}`);
        }
      }
      for (const [name, file] of [
        ['rtf INCLUDEPICTURE', 'evil.rtf'],
        ['docx SVG picture under a .png name', 'evil.docx'],
        ['rtf \\pngblip holding an SVG', 'svg.rtf'],
      ] as const) {
        const document = documents.find((d) => d.name === name)!;
        assert.equal((await c.upload(file, document.bytes)).status, 201);
        const pages = (await c.get(`/v1/templates/thumbnails?templateName=${file}&zoomFactor=50`)).json() as string[];
        for (const page of pages) assert.equal(secretShareInPng(Buffer.from(page, 'base64')), 0, `template thumbnails ${name}`);
        const shared = await c.get(`/v1/document/share?templateName=${file}`);
        assert.equal(shared.status, 200, shared.text);
        const page = await fetch(`${env.server.url}/share/${shared.json() as string}/pages/1.png`);
        assert.equal(page.status, 200, `share page ${name}`);
        assert.equal(secretShareInPng(new Uint8Array(await page.arrayBuffer())), 0, `share page ${name}`);
      }
    });
  });
}
