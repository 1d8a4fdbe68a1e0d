import { readFileSync } from 'node:fs';

/** The version in package.json (one place to change it); read from src/ and dist/ alike. */
export const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
