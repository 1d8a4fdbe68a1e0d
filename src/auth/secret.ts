import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * The master secret: DOCSMITH_SECRET when set (instances sharing a database must share it),
 * else a file in the data directory made on first use.
 */
export function loadMasterSecret(configured: string | undefined, dataDir: string): string {
  if (configured) return configured;
  const file = path.join(dataDir, 'secret.key');
  fs.mkdirSync(dataDir, { recursive: true });
  if (!fs.existsSync(file)) {
    // Written aside and linked into place, so a concurrent reader never sees a half-written file.
    const temp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(temp, randomBytes(32).toString('hex') + '\n', { mode: 0o600 });
    try {
      fs.linkSync(temp, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      fs.unlinkSync(temp);
    }
  }
  const secret = fs.readFileSync(file, 'utf8').trim();
  if (secret.length < 32) throw new Error(`${file} is damaged: expected at least 32 characters`);
  return secret;
}
