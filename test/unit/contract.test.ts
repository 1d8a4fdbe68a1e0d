// The client's wire types are generated from the schemas the server validates with; they must not drift.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { CLIENT_TYPES_FILE, generateClientTypes } from '../../scripts/client-types.js';
import { describeSchemaFailure } from '../../src/api/requests/validation.js';
import { mergeBodySchema } from '../../src/api/requests/schemas.js';

describe('the wire contract', () => {
  it('packages/client/src/wire.ts is generated from the current schemas (run: node --import tsx scripts/client-types.ts)', async () => {
    assert.equal(readFileSync(CLIENT_TYPES_FILE, 'utf8'), await generateClientTypes());
  });

  it('turns a failed schema check into a sentence that says what to send', () => {
    const settings = mergeBodySchema.properties.mergeSettings;
    assert.equal(
      describeSchemaFailure(
        {
          keyword: 'pattern',
          instancePath: '/mergeSettings/mergeHtml',
          params: {},
          data: 'yes',
          parentSchema: settings.properties.mergeHtml,
        },
        'body',
      ),
      'mergeSettings.mergeHtml must be true or false, not "yes".',
    );
    assert.equal(
      describeSchemaFailure(
        { keyword: 'required', instancePath: '', params: { missingProperty: 'mergeData' }, parentSchema: mergeBodySchema },
        'body',
      ),
      'mergeData is missing: send an array of records (JSON objects) or one record.',
    );
    assert.equal(
      describeSchemaFailure(
        {
          keyword: 'minItems',
          instancePath: '/mergeData',
          params: { limit: 1 },
          data: [],
          parentSchema: mergeBodySchema.properties.mergeData,
        },
        'body',
      ),
      'mergeData is an empty array; send at least one record.',
    );
    assert.equal(
      describeSchemaFailure(
        {
          keyword: 'type',
          instancePath: '/mergeData/2',
          params: { type: 'object' },
          data: 'x',
          parentSchema: mergeBodySchema.properties.mergeData.items,
        },
        'body',
      ),
      'mergeData[2] must be a record (a JSON object), not a JSON string.',
    );
    assert.equal(
      describeSchemaFailure({ keyword: 'required', instancePath: '', params: { missingProperty: 'returnFormat' } }, 'querystring'),
      'The query parameter "returnFormat" is required.',
    );
  });
});
