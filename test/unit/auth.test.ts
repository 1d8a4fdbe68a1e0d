import { keyName } from '../../src/accounts/accounts.js';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { API_KEY_LENGTH, generateApiKey, hashApiKey, KeyRing } from '../../src/auth/apikeys.js';
import { hashingLimits, hashPassword, verifyAgainstNothing, verifyPassword } from '../../src/auth/passwords.js';
import { BusyError } from '../../src/errors.js';

describe('secrets (auth/)', () => {
  it('makes long random API keys, looked up by their hash and sealed at rest under the master secret', () => {
    const keys = new Set(Array.from({ length: 200 }, generateApiKey));
    assert.equal(keys.size, 200);
    for (const key of keys) assert.match(key, new RegExp(`^[A-Za-z0-9]{${API_KEY_LENGTH}}$`));
    const [key] = keys;
    assert.equal(hashApiKey(key!), hashApiKey(key!));
    assert.match(hashApiKey(key!), /^[0-9a-f]{64}$/);
    const ring = new KeyRing('secret one');
    const sealed = ring.seal(key!);
    assert.ok(!sealed.includes(key!), 'not stored in the clear');
    assert.equal(ring.open(sealed), key);
    assert.equal(new KeyRing('secret two').open(sealed), null, 'another master secret opens nothing');
    const [version, iv, tag, body] = sealed.split(':');
    const flipped = Buffer.from(body!, 'base64');
    flipped[0] = flipped[0]! ^ 1;
    assert.equal(ring.open([version, iv, tag, flipped.toString('base64')].join(':')), null, 'a changed byte is refused');
    assert.equal(ring.open('v0:garbage'), null);
  });

  it('hashes passwords with scrypt and a salt of their own, and verifies them', async () => {
    const [one, two] = await Promise.all([hashPassword('correct horse'), hashPassword('correct horse')]);
    assert.notEqual(one, two, 'salted');
    assert.match(one, /^scrypt\$16384\$8\$1\$/);
    assert.equal(await verifyPassword('correct horse', one), true);
    assert.equal(await verifyPassword('correct horsf', one), false);
    assert.equal(await verifyPassword('correct horse', 'plain$text'), false, 'a stored value of another form never matches');
    assert.equal(await verifyAgainstNothing('anything'), false);
  });

  it('bounds the hashing work: past the waiting line a sign-in is refused with 503 at once', async () => {
    const saved = { ...hashingLimits };
    Object.assign(hashingLimits, { concurrent: 1, waiting: 1 });
    try {
      const stored = await hashPassword('pw');
      const results = await Promise.allSettled(Array.from({ length: 4 }, () => verifyPassword('pw', stored)));
      assert.deepEqual(
        results.map((r) => (r.status === 'fulfilled' ? r.value : r.reason instanceof BusyError ? 'busy' : String(r.reason))),
        [true, true, 'busy', 'busy'],
      );
    } finally {
      Object.assign(hashingLimits, saved);
    }
  });
});

describe('API key names', () => {
  it('refuses what makes one label read as another or as markup, as template names do', () => {
    assert.equal(keyName('  Billing  '), 'Billing');
    assert.equal(keyName('Cafe\u0301'), 'Café', 'stored in NFC');
    assert.throws(() => keyName('billing\u202eyek'), /invisible formatting characters/);
    assert.throws(() => keyName('a\u200bb'), /invisible formatting characters/);
    assert.throws(() => keyName('<img src=x onerror=alert(1)>'), /cannot hold < or >/);
    assert.throws(() => keyName('line\nbreak'), /control characters/);
  });
});
