/** A background job's request as bytes while it waits in the store (documents as Base64, dates as ISO text). */
import type { DocumentSettings } from '../documents/settings.js';
import type { DocumentProperties } from '../formats/properties.js';
import type { Divider } from '../compose/builder.js';
import type { AppendRequest, ConvertRequest, JobRequest, MergeRequest } from '../operations/requests.js';

type Stored<T> = Omit<T, 'document' | 'documents'> & Record<string, unknown>;

const storedSettings = (s: DocumentSettings) => ({
  password: s.password ?? null,
  accessible: s.accessible ?? false,
  pdfa3: s.pdfa3 ?? false,
  properties: Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, v instanceof Date ? v.toISOString() : v])),
});

function settingsFrom(value: {
  password: string | null;
  accessible?: boolean;
  pdfa3?: boolean;
  properties: Record<string, string | undefined>;
}): DocumentSettings {
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

/** A request as bytes, while its job waits (documents as Base64). */
export function serialiseRequest(request: JobRequest): Buffer {
  let stored: Stored<JobRequest>;
  switch (request.kind) {
    case 'merge':
      stored = { ...request, document: storedSettings(request.document) };
      break;
    case 'append':
      stored = {
        ...request,
        document: storedSettings(request.document),
        documents: request.documents.map((d) => ({ bytes: d.bytes.toString('base64'), divider: d.divider })),
      };
      break;
    case 'convert':
      stored = { ...request, document: request.document.toString('base64') };
      break;
  }
  return Buffer.from(JSON.stringify(stored));
}

export function deserialiseRequest(bytes: Buffer): JobRequest {
  const stored = JSON.parse(bytes.toString('utf8')) as Record<string, unknown> & { kind: JobRequest['kind'] };
  switch (stored.kind) {
    case 'merge':
      // JSON drops undefined: the optional fields come back explicitly.
      return {
        ...(stored as unknown as MergeRequest),
        templateName: stored.templateName as string | undefined,
        template: stored.template,
        document: settingsFrom(stored.document as never),
      };
    case 'append':
      return {
        ...(stored as unknown as AppendRequest),
        document: settingsFrom(stored.document as never),
        documents: (stored.documents as { bytes: string; divider: Divider }[]).map((d) => ({
          bytes: Buffer.from(d.bytes, 'base64'),
          divider: d.divider,
        })),
      };
    case 'convert':
      return { ...(stored as unknown as ConvertRequest), document: Buffer.from(stored.document as string, 'base64') };
  }
}
