import { InputError } from '../errors.js';

export interface LicenceLimits {
  maxDocuments: number;
  maxTemplates: number;
  maxProofingTransactions: number;
  /** How long a new account is valid; null for no end. */
  validDays: number | null;
}

const FREE: LicenceLimits = { maxDocuments: 500, maxTemplates: 10, maxProofingTransactions: 500, validDays: null };
const TRIAL: LicenceLimits = { maxDocuments: 30_000, maxTemplates: 100, maxProofingTransactions: 1_000, validDays: 30 };
const SERIAL: LicenceLimits = { maxDocuments: 1_000_000, maxTemplates: 1_000, maxProofingTransactions: 1_000_000, validDays: null };

/** `FREE`, `TRIAL` (any case) or a serial number of 4 to 64 letters, digits and dashes. */
export function normaliseLicence(input: string): string {
  const trimmed = input.trim();
  const upper = trimmed.toUpperCase();
  if (upper === 'FREE' || upper === 'TRIAL') return upper;
  if (/^[A-Za-z0-9][A-Za-z0-9-]{2,62}[A-Za-z0-9]$/.test(trimmed)) return trimmed;
  throw new InputError(`licence must be FREE, TRIAL or a serial number (4-64 letters, digits, dashes), got "${input}"`);
}

export function licenceDefaults(licence: string): LicenceLimits {
  if (licence === 'FREE') return FREE;
  if (licence === 'TRIAL') return TRIAL;
  return SERIAL;
}

/** Test runs (watermarked, not counted) need a paid licence. */
export function allowsTestRuns(licence: string): boolean {
  return licence !== 'FREE' && licence !== 'TRIAL';
}
