import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { addressGroup, userDelayMs } from '../../src/auth/throttle.js';
import { checkTimes, hashingLimits, hashPassword, verifyAgainstNothing, verifyPassword } from '../../src/auth/passwords.js';

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

  it('an unknown user costs no hashing place: a flood of made-up names never delays or refuses a real check', async () => {
    const stored = await hashPassword('pw');
    await verifyPassword('pw', stored);
    await verifyAgainstNothing('warm');
    const saved = { ...hashingLimits };
    Object.assign(hashingLimits, { concurrent: 1, waiting: 2 });
    try {
      const flood = Promise.allSettled(Array.from({ length: 200 }, () => verifyAgainstNothing('x')));
      // With the one place free, a real check starts at once and is never refused.
      const real = await Promise.allSettled([verifyPassword('pw', stored), verifyPassword('pw', stored), verifyPassword('pw', stored)]);
      assert.deepEqual(
        real.map((r) => r.status),
        ['fulfilled', 'fulfilled', 'fulfilled'],
      );
      const unknown = await flood;
      assert.ok(
        unknown.every((r) => r.status === 'fulfilled' && r.value === false),
        'no made-up name is refused for lack of a place',
      );
    } finally {
      Object.assign(hashingLimits, saved);
    }
  });

  it('an unknown user answers as slowly as a real check: one of the latest real times', async () => {
    const stored = await hashPassword('pw');
    for (let i = 0; i < 3; i++) await verifyPassword('pw', stored);
    const started = performance.now();
    assert.equal(await verifyAgainstNothing('x'), false);
    const elapsed = performance.now() - started;
    assert.ok(elapsed >= checkTimes.shortest(), `${elapsed} ms, the shortest real check ${checkTimes.shortest()} ms`);
  });
});
