import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { deserialiseRequest, serialiseRequest } from '../../src/jobs/stored.js';
import type { JobRequest } from '../../src/operations/requests.js';
import { DEFAULT_MERGE_OPTIONS } from '../../src/merge/engine.js';

describe('requests kept while a job waits', () => {
  it('come back as they were sent: documents, dates, passwords, options', () => {
    const requests: JobRequest[] = [
      {
        kind: 'merge',
        format: 'pdf',
        append: false,
        test: true,
        templateName: undefined,
        template: 'UEsDBA==',
        records: [{ name: 'Ann', items: [{ n: 1 }] }],
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
    ];
    for (const request of requests) assert.deepEqual(deserialiseRequest(serialiseRequest(request)), request, request.kind);
  });
});
