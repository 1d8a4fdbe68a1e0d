import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from './server.js';

/** Whether openssl is here to make certificates with. */
export const hasOpenssl = spawnSync('sh', ['-c', 'command -v openssl']).status === 0;

/** A self-signed certificate with its key in a PKCS#12 file, made by openssl; the file's path. */
export function makeP12(commonName: string, password: string): string {
  const dir = tempDir();
  const openssl = (args: string[]) => assert.equal(spawnSync('openssl', args, { cwd: dir }).status, 0, `openssl ${args[0]}`);
  openssl([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'key.pem',
    '-out',
    'cert.pem',
    '-days',
    '30',
    '-subj',
    `/CN=${commonName}/O=ACME`,
  ]);
  openssl(['pkcs12', '-export', '-inkey', 'key.pem', '-in', 'cert.pem', '-out', 'signer.p12', '-passout', `pass:${password}`]);
  const file = path.join(dir, 'signer.p12');
  assert.ok(fs.existsSync(file));
  return file;
}
