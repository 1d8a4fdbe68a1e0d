import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { accessOf, refusal } from '../../src/auth/scopes.js';

describe('API key scopes', () => {
  it('reads what a route does from its address and method', () => {
    const cases: [string, string, string][] = [
      ['GET', '/v1/account/settings', 'settings'],
      ['GET', '/v1/account/apikeys', 'keys'],
      ['PUT', '/v1/account/apikey', 'keys'],
      ['PATCH', '/v1/account/keys/:id', 'keys'],
      ['GET', '/v1/templates/list', 'templates:read'],
      ['GET', '/v1/templates/download', 'templates:read'],
      ['POST', '/v1/templates/upload', 'templates:write'],
      ['DELETE', '/v1/templates/delete', 'templates:write'],
      ['POST', '/v1/templates/rollback', 'templates:write'],
      ['POST', '/v1/document/share', 'templates:write'],
      ['POST', '/v1/document/merge', 'documents'],
      ['POST', '/v1/processing/review/trackedchanges', 'documents'],
      ['GET', '/v1/proofing/check', 'documents'],
      ['GET', '/v1/jobs/:id/result', 'documents'],
      ['POST', '/v1/_test/operation', 'keys'],
    ];
    for (const [method, route, access] of cases) assert.equal(accessOf(method, route), access, `${method} ${route}`);
  });

  it('allows each scope its work and says which scope the refused work needs', () => {
    assert.equal(refusal('full', 'keys'), null);
    assert.equal(refusal('merge', 'documents'), null);
    assert.equal(refusal('read', 'templates:read'), null);
    assert.equal(refusal('read', 'settings'), null);
    assert.match(refusal('merge', 'templates:write')!, /scope is "merge".*changing stored templates needs a key with scope full\./);
    assert.match(refusal('read', 'documents')!, /document work needs a key with scope full or merge\./);
    assert.match(refusal('merge', 'keys')!, /managing the account and its keys needs a key with scope full\./);
  });
});
