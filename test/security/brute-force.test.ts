import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { adminServices, makeAccount } from '../helpers/accounts.js';
import { startServer, tempDir, type RunningServer } from '../helpers/server.js';

/** GET /v1/account/settings from a chosen loopback address, with a given Authorization header. */
function settings(url: string, authorization: string, from = '127.0.0.1'): Promise<{ status: number; retryAfter?: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}/v1/account/settings`, { headers: { authorization }, localAddress: from, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined }));
    });
    req.on('error', reject);
    req.end();
  });
}
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('brute-force protection of sign-ins', () => {
  let server: RunningServer;
  let ann: { user: string; password: string };
  let bob: { user: string; password: string };
  let carl: { user: string; password: string };
  let dora: { user: string; password: string };
  let erin: { user: string; password: string };
  let annKey: string;
  before(async () => {
    const dataDir = tempDir();
    const admin = await adminServices({ dataDir });
    ann = await makeAccount(admin, 'ann');
    bob = await makeAccount(admin, 'bob');
    carl = await makeAccount(admin, 'carl');
    dora = await makeAccount(admin, 'dora');
    erin = await makeAccount(admin, 'erin');
    annKey = (await admin.apiKeys.create((await admin.store.accounts.byUsername('ann'))!.id))!;
    await admin.store.close();
    server = await startServer({
      DOCSMITH_DATA_DIR: dataDir,
      HOST: '0.0.0.0',
      DOCSMITH_AUTH_MAX_FAILURES_PER_USER: '5',
      DOCSMITH_AUTH_MAX_FAILURES_PER_ADDRESS: '20',
      DOCSMITH_AUTH_WINDOW_S: '600',
    });
  });
  after(() => server.stop());

  it('answers 429 with Retry-After after too many wrong passwords for a user from one address, and never locks out the owner', async () => {
    const statuses: number[] = [];
    let retryAfter: string | undefined;
    for (let i = 0; i < 12; i++) {
      const reply = await settings(server.url, basic(ann.user, `wrong-${i}`), '127.0.0.2');
      statuses.push(reply.status);
      retryAfter ??= reply.retryAfter;
    }
    assert.deepEqual(statuses.slice(0, 5), [403, 403, 403, 403, 403]);
    assert.ok(
      statuses.slice(5).every((s) => s === 429),
      statuses.join(),
    );
    assert.ok(Number(retryAfter) > 0 && Number(retryAfter) <= 600, `retry-after ${retryAfter}`);
    // The right password is refused too from that address: guessing must not pay off there.
    assert.equal((await settings(server.url, basic(ann.user, ann.password), '127.0.0.2')).status, 429);
    // From elsewhere the owner still signs in (slowed while the user is under attack), and another
    // address's guesses are refused as wrong, not locked out: ten failures cannot lock a user out.
    assert.equal((await settings(server.url, basic(ann.user, ann.password), '127.0.0.4')).status, 200);
    assert.equal((await settings(server.url, basic(ann.user, 'wrong-again'), '127.0.0.7')).status, 403);
    // The owner's API key keeps working, from anywhere.
    assert.equal((await settings(server.url, `ReportingCloud-APIKey ${annKey}`, '127.0.0.2')).status, 200);
    // Other users are not affected.
    assert.equal((await settings(server.url, basic(bob.user, bob.password), '127.0.0.2')).status, 200);
  });

  it('counts concurrent guesses exactly: 20 at once check no more passwords than the limit', async () => {
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => settings(server.url, basic(bob.user, `wrong-${i}`), '127.0.0.6')),
    );
    const statuses = replies.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 403).length, 5, statuses.join());
    assert.equal(statuses.filter((s) => s === 429).length, 15, statuses.join());
    // A client's own parallel first requests (no cached sign-in yet) all get in: they wait, not fail.
    const owner = await Promise.all(Array.from({ length: 20 }, () => settings(server.url, basic(dora.user, dora.password), '127.0.0.8')));
    assert.ok(
      owner.every((r) => r.status === 200),
      owner.map((r) => r.status).join(),
    );
  });

  it('limits failed attempts per client address across user names and keys', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 24; i++) {
      const header = i % 2 ? basic(`nobody-${i}`, 'x') : `ReportingCloud-APIKey guessed-key-${i}`;
      statuses.push((await settings(server.url, header, '127.0.0.3')).status);
    }
    assert.ok(
      statuses.slice(0, 20).every((s) => s === 403),
      statuses.join(),
    );
    assert.ok(
      statuses.slice(20).every((s) => s === 429),
      statuses.join(),
    );
    assert.equal((await settings(server.url, basic(carl.user, carl.password), '127.0.0.3')).status, 429, 'that address is blocked');
    assert.equal((await settings(server.url, basic(carl.user, carl.password), '127.0.0.5')).status, 200, 'others are not');
    assert.equal((await settings(server.url, `ReportingCloud-APIKey ${annKey}`, '127.0.0.3')).status, 200, 'a valid key still works');
  });

  it('a flood of made-up user names from 100 addresses takes no hashing place: the owner signs in, none of it is refused as busy', async (t) => {
    const flood = Promise.all(
      Array.from({ length: 100 }, (_, i) => settings(server.url, basic(`made-up-${i}`, 'guess'), `127.0.1.${i + 1}`)),
    );
    const started = performance.now();
    const owner = await settings(server.url, basic(erin.user, erin.password), '127.0.2.1');
    const ownerMs = performance.now() - started;
    const replies = await flood;
    assert.equal(owner.status, 200);
    assert.deepEqual([...new Set(replies.map((r) => r.status))], [403], 'a made-up name is a failed sign-in, never a 503');
    t.diagnostic(`the owner signed in after ${Math.round(ownerMs)} ms, with 100 made-up names at once beside it`);
  });
});
