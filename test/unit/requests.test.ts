import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { deserialiseRequest, serialiseRequest } from '../../src/jobs/stored.js';
import type { JobRequest } from '../../src/operations/kinds/index.js';
import { DEFAULT_MERGE_OPTIONS } from '../../src/merge/engine.js';
import { Records } from '../../src/merge/records.js';

describe('requests kept while a job waits', () => {
  it('come back as they were sent: documents, dates, passwords, options', () => {
    const requests: JobRequest[] = [
      {
        kind: 'merge',
        format: 'pdf',
        append: false,
        test: true,
        source: { bytes: Buffer.from('UEsDBA==', 'base64') },
        records: Records.of([{ name: 'Ann', items: [{ n: 1 }] }]),
        options: { ...DEFAULT_MERGE_OPTIONS, culture: 'de-DE' },
        document: { password: 'pw', properties: { title: 'T', creationDate: new Date('2026-01-02T03:04:05Z') } },
      },
      {
        kind: 'append',
        format: 'docx',
        test: false,
        documents: [
          { bytes: Buffer.from([0, 1, 2, 255]), divider: 'section' },
          { bytes: Buffer.from('x'), divider: 'none' },
        ],
        document: { password: undefined, properties: { lastModificationDate: new Date('2025-12-31T23:59:59Z'), author: 'A' } },
      },
      { kind: 'convert', format: 'txt', test: false, document: Buffer.from('<p>hi</p>'), from: 'html' },
      {
        kind: 'merge',
        format: 'docx',
        append: true,
        test: false,
        source: { templateName: 'invoice.docx', templateVersion: 3 },
        records: Records.of([{}]),
        options: DEFAULT_MERGE_OPTIONS,
        document: { password: undefined, properties: {} },
      },
    ];
    for (const request of requests) assert.deepEqual(deserialiseRequest(serialiseRequest(request)), request, request.kind);
  });

  it('keep the stored form jobs queued by earlier versions have (an upgrade finds them waiting)', () => {
    const earlier = [
      '{"kind":"merge","format":"pdf","append":false,"test":true,"template":"UEsDBA==","records":[{"name":"Ann"}],"options":{"removeEmptyFields":true,"removeEmptyBlocks":true,"removeEmptyLines":false,"removeEmptyImages":false,"mergeHtml":false,"removeTrailingWhitespace":true,"culture":"de-DE"},"document":{"password":"pw","accessible":false,"pdfa3":false,"properties":{"title":"T","creationDate":"2026-01-02T03:04:05.000Z"}},"signature":"invisible","einvoice":{}}',
      '{"kind":"append","format":"docx","test":false,"documents":[{"bytes":"AAEC/w==","divider":"section"}],"document":{"password":null,"accessible":false,"pdfa3":false,"properties":{"author":"A"}}}',
      '{"kind":"convert","format":"txt","test":false,"document":"PHA+aGk8L3A+","from":"html","accessible":true}',
    ];
    // Key for key (their order aside): what this version stores, an earlier one reads back too.
    for (const stored of earlier)
      assert.deepEqual(JSON.parse(serialiseRequest(deserialiseRequest(Buffer.from(stored))).toString()), JSON.parse(stored));
  });
});
