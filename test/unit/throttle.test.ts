import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { addressGroup, userDelayMs } from '../../src/auth/throttle.js';
import { hashingLimits, verifyAgainstNothing } from '../../src/auth/passwords.js';

describe('sign-in throttling', () => {
  it('counts IPv6 clients by their /64 and IPv4 (also mapped) by address', async () => {
    assert.equal(addressGroup('2001:db8:1:2:aaaa::1'), addressGroup('2001:db8:1:2:ffff:1:2:3'));
    assert.notEqual(addressGroup('2001:db8:1:2::1'), addressGroup('2001:db8:1:3::1'));
    assert.equal(addressGroup('::ffff:10.1.2.3'), '10.1.2.3');
    assert.equal(addressGroup('10.1.2.3'), '10.1.2.3');
  });

  it('slows a user under attack progressively, without a lockout', async () => {
    assert.deepEqual(
      [0, 9, 10, 19, 20, 30, 10_000].map((f) => userDelayMs(f, 10)),
      [0, 0, 250, 250, 500, 1000, 8000],
    );
  });

  it('bounds the hashing work: past the waiting line a sign-in answers 503 at once', async () => {
    await verifyAgainstNothing('warm'); // the dummy hash itself
    const saved = { ...hashingLimits };
    Object.assign(hashingLimits, { concurrent: 1, waiting: 2 });
    try {
      const results = await Promise.allSettled(Array.from({ length: 6 }, () => verifyAgainstNothing('x')));
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 3);
      const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      assert.equal(refused.length, 3);
      assert.match(String(refused[0]!.reason), /Too many sign-ins/);
      assert.equal((refused[0]!.reason as { status: number }).status, 503);
    } finally {
      Object.assign(hashingLimits, saved);
    }
  });
});
