/**
 * The request bodies of the wire contract as JSON Schema. Fastify validates every body against
 * these; /openapi.json documents them; packages/client/src/wire.ts is generated from them
 * (scripts/client-types.ts). The parsers beside this file then normalise what passed.
 *
 * Conventions the error messages and the client generator rely on:
 * - `description` is a noun phrase ("true or false"), so a failure reads "X must be <description>".
 * - Where a `type` lists several, the first is the canonical one (what the client sends); the
 *   others are tolerated because the official SDKs send them (null for unset, "true" for true).
 * - `title` on an array's items names one entry ("record") for "send at least one record".
 */

import type { FromSchema } from 'json-schema-to-ts';

const flag = {
  type: ['boolean', 'string', 'null'],
  pattern: '^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])$',
  description: 'true or false',
} as const;
const text = (description: string) => ({ type: ['string', 'null'], description }) as const;
const date = text('a date like 2024-05-06T07:08:09Z');

export const documentSettingsProperties = {
  author: text('the author written into the document properties'),
  documentTitle: text('the title written into the document properties (at most 2000 characters for PDF)'),
  documentSubject: text('the subject written into the document properties (at most 2000 characters for PDF)'),
  creatorApplication: text('the creating application written into the document properties'),
  creationDate: date,
  lastModificationDate: date,
  userPassword: text('a password to open the document, for PDF and DOCX/DOC output (ignored by formats that cannot carry one)'),
} as const;

export const documentSettingsSchema = {
  type: ['object', 'null'],
  description:
    'a JSON object of document properties (author, documentTitle, documentSubject, creatorApplication, creationDate, lastModificationDate, userPassword)',
  properties: documentSettingsProperties,
} as const;

export const mergeSettingsSchema = {
  type: ['object', 'null'],
  description:
    'a JSON object of merge options (removeEmptyFields, removeEmptyBlocks, removeEmptyImages, removeEmptyLines, removeTrailingWhitespace, mergeHtml, culture; docsmith: timezone, complement, translations) and document properties',
  properties: {
    removeEmptyFields: flag,
    removeEmptyBlocks: flag,
    removeEmptyImages: flag,
    removeEmptyLines: flag,
    removeTrailingWhitespace: flag,
    mergeHtml: flag,
    culture: text('a culture name such as en-US or de-DE, for number and date formats'),
    timezone: text(
      'docsmith: an IANA time zone such as Europe/Paris: a date value written with an offset (2024-05-06T07:08:09Z) shows its time there; absent, as written',
    ),
    complement: {
      type: ['object', 'null'],
      additionalProperties: true,
      description: 'docsmith: values every record shares, read by the fields $c.name (Carbone tags: {c.name})',
    },
    translations: {
      type: ['object', 'null'],
      additionalProperties: { type: 'object', additionalProperties: { type: 'string' } },
      description:
        'docsmith: translation tables by language for Carbone tags {t(text)}, as Carbone takes them: {"fr-fr": {"Total": "Somme"}}; the one for the culture is used',
    },
    ...documentSettingsProperties,
  },
} as const;

const template = {
  type: ['string', 'null'],
  minLength: 1,
  description: 'the template (DOCX, DOC, RTF or TX) as a Base64 string, when no templateName is given',
} as const;

const record = { type: 'object', title: 'record', description: 'a record (a JSON object)', additionalProperties: true } as const;

export const mergeBodySchema = {
  type: 'object',
  description: 'a JSON object with "mergeData" (and "template" when no templateName is given)',
  properties: {
    mergeData: {
      type: ['array', 'object'],
      minItems: 1,
      items: record,
      description: 'an array of records (JSON objects) or one record',
    },
    template,
    mergeSettings: mergeSettingsSchema,
    einvoiceXml: {
      type: 'string',
      minLength: 1,
      description:
        'with einvoice=factur-x (docsmith): the invoice as Cross Industry Invoice XML text, attached as sent (any Factur-X profile); absent: built from the record (docs/einvoice.md)',
    },
  },
  required: ['mergeData'],
  examples: [{ mergeData: [{ customer: 'ACME', items: [{ name: 'Bolt', qty: 5 }] }], mergeSettings: { culture: 'en-US' } }],
} as const;

export const findAndReplaceBodySchema = {
  type: 'object',
  description: 'a JSON object with "findAndReplaceData" (and "template" when no templateName is given)',
  properties: {
    findAndReplaceData: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'array',
        title: 'pair',
        minItems: 2,
        maxItems: 2,
        items: [
          { type: 'string', description: 'the text to find (a string)' },
          { type: ['string', 'null'], description: 'its replacement (a string)' },
        ],
        additionalItems: false,
        description: 'a pair of strings, like ["«name»", "Ann"]',
      },
      description: 'an array of ["find", "replace"] pairs',
    },
    template,
    mergeSettings: mergeSettingsSchema,
  },
  required: ['findAndReplaceData'],
  examples: [{ findAndReplaceData: [['%%NAME%%', 'ACME']] }],
} as const;

export const MAX_APPEND_DOCUMENTS = 1000;

export const appendBodySchema = {
  type: 'object',
  description: 'a JSON object with "documents"',
  properties: {
    documents: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_APPEND_DOCUMENTS,
      items: {
        type: 'object',
        title: 'document',
        description: 'an object with "document" and "documentDivider"',
        properties: {
          document: { type: 'string', minLength: 1, description: 'the document (DOCX, DOC, RTF, TX or HTML) as a Base64 string' },
          documentDivider: {
            type: ['integer', 'string', 'null'],
            minimum: 1,
            maximum: 3,
            description: '1 (None), 2 (NewParagraph) or 3 (NewSection)',
          },
        },
        required: ['document'],
      },
      description: 'an array of {"document": "<Base64>", "documentDivider": 1|2|3}',
    },
    documentSettings: documentSettingsSchema,
  },
  required: ['documents'],
  examples: [
    {
      documents: [
        { document: 'UEsDBBQ...', documentDivider: 3 },
        { document: 'UEsDBBQ...', documentDivider: 1 },
      ],
    },
  ],
} as const;

/** One document as a JSON string (upload, convert, thumbnails, review). */
export const base64BodySchema = {
  type: 'string',
  minLength: 1,
  description: 'a JSON string holding the document as Base64',
  examples: ['UEsDBBQABgAIAAAAIQ...'],
} as const;

/** The bodies as the schemas admit them: what the parsers get (the types come from the schemas, not beside them). */
export type MergeBody = FromSchema<typeof mergeBodySchema>;
export type FindAndReplaceBody = FromSchema<typeof findAndReplaceBodySchema>;
export type AppendBody = FromSchema<typeof appendBodySchema>;
export type MergeSettingsBody = FromSchema<typeof mergeSettingsSchema>;
export type DocumentSettingsBody = FromSchema<typeof documentSettingsSchema>;
export type Base64Body = FromSchema<typeof base64BodySchema>;
