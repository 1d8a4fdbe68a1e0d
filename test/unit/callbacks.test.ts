import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { CallbackPolicy, callbackSecret, signCallback } from '../../src/jobs/callbacks.js';
import { ConfigError } from '../../src/config.js';

describe('job callback policy', () => {
  it('allows public addresses only by default', () => {
    const policy = new CallbackPolicy(['public']);
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700::6810:84e5']) assert.ok(policy.allows('example.com', address), address);
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fc00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '224.0.0.1',
      '255.255.255.255',
      '::7f00:1',
      '[::127.0.0.1]',
      '::a9fe:a9fe',
      '::a00:1',
    ]) {
      // IPv4-compatible forms of internal addresses
      assert.equal(policy.allows('example.com', address), false, address);
    }
  });

  it('takes addresses, ranges and host names from the setting', () => {
    const policy = new CallbackPolicy(['10.0.0.0/8', '::1', 'hooks.internal', '*.corp.example']);
    assert.ok(policy.allows('x', '10.9.8.7'));
    assert.ok(policy.allows('x', '::1'));
    assert.equal(policy.allows('x', '8.8.8.8'), false, 'public is not in the list');
    assert.ok(policy.allows('hooks.internal', '192.168.0.5'), 'a named host may resolve anywhere');
    assert.ok(policy.allows('a.corp.example', '192.168.0.5'));
    assert.equal(policy.allows('corp.example.evil', '192.168.0.5'), false);
  });

  it('refuses mistakes in the setting, and can be turned off', async () => {
    assert.throws(() => new CallbackPolicy(['10.0.0.0/99']), ConfigError);
    assert.throws(() => new CallbackPolicy(['http://x']), ConfigError);
    const off = new CallbackPolicy(['none']);
    assert.equal(off.enabled, false);
    await assert.rejects(off.check('https://example.com/'), /turned off/);
  });

  it('checks URLs before queuing', async () => {
    const policy = new CallbackPolicy(['public']);
    await assert.rejects(policy.check('ftp://example.com/'), /http/);
    await assert.rejects(policy.check('not a url'), /not a URL/);
    await assert.rejects(policy.check('http://127.0.0.1:8080/'), /not an address this server may call/);
    await assert.rejects(policy.check('http://[::ffff:a9fe:a9fe]/'), /not an address/);
    await assert.rejects(policy.check('http://[::127.0.0.1]/'), /not an address/);
    await assert.rejects(policy.check('http://localhost/'), /not an address/);
    assert.equal((await policy.check('http://93.184.216.34/hook')).href, 'http://93.184.216.34/hook');
  });

  it('signs as documented: HMAC-SHA256 of "<t>.<body>" with the account secret', () => {
    const secret = callbackSecret('master', 7);
    assert.notEqual(secret, callbackSecret('master', 8));
    assert.notEqual(secret, callbackSecret('other', 7));
    const header = signCallback(secret, '{"id":"x"}', 1_700_000_000_500);
    assert.equal(header, `t=1700000000,v1=${createHmac('sha256', secret).update('1700000000.{"id":"x"}').digest('hex')}`);
  });
});
