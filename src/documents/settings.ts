import type { DocumentProperties } from '../ooxml/properties.js';

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

/** The settings as JSON while a background job waits (dates as ISO text). */
export function settingsToJson(s: DocumentSettings): Record<string, unknown> {
  return {
    password: s.password ?? null,
    accessible: s.accessible ?? false,
    pdfa3: s.pdfa3 ?? false,
    properties: Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, v instanceof Date ? v.toISOString() : v])),
  };
}

/** The settings back from their JSON form (settingsToJson). */
export function settingsFromJson(json: unknown): DocumentSettings {
  const value = json as { password: string | null; accessible?: boolean; pdfa3?: boolean; properties: Record<string, string | undefined> };
  const properties: DocumentProperties = { ...value.properties } as DocumentProperties;
  for (const key of ['creationDate', 'lastModificationDate'] as const) {
    const date = value.properties[key];
    if (date !== undefined) properties[key] = new Date(date);
  }
  return {
    password: value.password ?? undefined,
    properties,
    ...(value.accessible ? { accessible: true } : {}),
    ...(value.pdfa3 ? { pdfa3: true } : {}),
  };
}
