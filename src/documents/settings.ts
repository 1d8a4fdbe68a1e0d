import type { DocumentProperties } from '../formats/properties.js';

/** Properties and password a produced document carries (parsed from the wire in api/requests/settings.ts). */
export interface DocumentSettings {
  properties: DocumentProperties;
  password: string | undefined;
  /** docsmith: tagged PDF/UA (accessible) output; PDF and PDFA only. */
  accessible?: boolean;
  /** docsmith: PDF/A-3b output, set for e-invoices (their XML is attached after). */
  pdfa3?: boolean;
}

export function hasProperties(p: DocumentProperties): boolean {
  return Object.values(p).some((v) => v !== undefined);
}
