/** JSON Schema pieces shared by route definitions; they feed validation and /openapi.json. */
import { JOB_KINDS } from '../operations/kinds/index.js';

export const errorSchema = {
  type: 'object',
  properties: { message: { type: 'string' } },
  required: ['message'],
} as const;

export const booleanQuerySchema = {
  type: 'string',
  description: 'true or false (also True, False, 1, 0)',
} as const;

export const templateNameQuery = {
  type: 'object',
  properties: { templateName: { type: 'string', description: 'File name of the template in the storage, e.g. invoice.docx' } },
  required: ['templateName'],
} as const;

/** `templateSyntax` (docsmith): the syntax a template's tags are typed in. */
export const templateSyntaxProperty = {
  templateSyntax: {
    type: 'string',
    enum: ['word', 'docxtemplater', 'carbone'],
    description:
      'docsmith: how the template marks its data. word (the default): merge fields and txmb_ bookmarks; docxtemplater: tags typed as text, {name}, {#items}...{/items}, {^items}...{/items}; carbone: {d.name:formatN(2)}, rows repeated by {d.items[i].name} and {d.items[i+1].name} (docs/authoring.md). On upload it is kept with the template; on merge it overrides the stored one.',
  },
} as const;

export const base64Body = {
  type: 'string',
  description: 'The document as a Base64 string',
} as const;

/** Standard error responses every authenticated endpoint may give. */
export const errorResponses = {
  400: { description: 'Bad input', ...errorSchema },
  403: { description: 'Not authorized, or over a quota or limit', ...errorSchema },
} as const;

// Response shapes. Every property is always sent, so all are required. `x-type` names a shape the
// client generator refers to instead of inlining it (merge blocks nest).

export const accountSettingsSchema = {
  type: 'object',
  'x-type': 'AccountSettings',
  properties: {
    serialNumber: { type: 'string', description: 'FREE, TRIAL or the serial number of the licence' },
    createdDocuments: { type: 'integer', description: 'documents created this calendar month (UTC); the count starts again on the 1st' },
    uploadedTemplates: { type: 'integer' },
    maxDocuments: { type: 'integer', description: 'documents allowed per calendar month' },
    maxTemplates: { type: 'integer' },
    validUntil: {
      type: 'string',
      description: 'YYYY-MM-DDTHH:MM:SS+00:00 (9999-12-31T00:00:00+00:00 when the account does not expire: year 9999 in every time zone)',
    },
    proofingTransactions: { type: 'integer', description: 'proofing calls this calendar month (UTC)' },
    maxProofingTransactions: { type: 'integer', description: 'proofing calls allowed per calendar month' },
  },
  required: [
    'serialNumber',
    'createdDocuments',
    'uploadedTemplates',
    'maxDocuments',
    'maxTemplates',
    'validUntil',
    'proofingTransactions',
    'maxProofingTransactions',
  ],
} as const;

export const apiKeySchema = {
  type: 'object',
  'x-type': 'ApiKey',
  properties: { key: { type: 'string' }, active: { type: 'boolean' } },
  required: ['key', 'active'],
} as const;

/** docsmith's own view of a key: masked, with its label and dates. */
export const apiKeyDetailsSchema = {
  type: 'object',
  'x-type': 'ApiKeyDetails',
  properties: {
    id: { type: 'integer', description: "The key's number, which the calls below take" },
    name: { type: 'string', description: "The owner's label ('' when none)" },
    masked: { type: 'string', description: 'The first and last four characters, e.g. "xFLD…Gr3u"' },
    active: { type: 'boolean' },
    createdAt: { type: 'string', format: 'date-time' },
    lastUsedAt: { type: ['string', 'null'], format: 'date-time', description: 'When it last signed a request in, to the minute' },
    scope: { type: 'string', enum: ['full', 'merge', 'read'], description: 'What the key may do; fixed when it is made' },
  },
  required: ['id', 'name', 'masked', 'active', 'createdAt', 'lastUsedAt', 'scope'],
} as const;

/** One entry of an account's audit log (docsmith). */
export const auditEventSchema = {
  type: 'object',
  'x-type': 'AuditEvent',
  properties: {
    id: { type: 'integer' },
    at: { type: 'string', format: 'date-time' },
    action: {
      type: 'string',
      description:
        'sign-in failed, key created, key renamed, key revoked, template uploaded, template replaced, template rolled back, template deleted, account created, account changed',
    },
    actor: { type: 'string', description: 'key 3 "Billing", password, or operator (CLI)' },
    address: { type: ['string', 'null'], description: "the client's address (null: the CLI)" },
    detail: { type: 'string' },
  },
  required: ['id', 'at', 'action', 'actor', 'address', 'detail'],
} as const;

export const templateListEntrySchema = {
  type: 'object',
  'x-type': 'TemplateListEntry',
  properties: {
    templateName: { type: 'string' },
    modified: { type: 'string', description: 'YYYY-MM-DDTHH:MM:SS+00:00' },
    size: { type: 'integer', description: 'bytes' },
  },
  required: ['templateName', 'modified', 'size'],
} as const;

export const shareLinkSchema = {
  type: 'object',
  'x-type': 'ShareLink',
  description: 'a live share link, as listed (its token is shown only once, when it is made)',
  properties: { id: { type: 'string' }, templateName: { type: 'string' }, created: { type: 'string' }, expires: { type: 'string' } },
  required: ['id', 'templateName', 'created', 'expires'],
} as const;

export const mergeFieldSchema = {
  type: 'object',
  'x-type': 'MergeField',
  properties: {
    name: { type: 'string' },
    text: { type: 'string' },
    textBefore: { type: 'string' },
    textAfter: { type: 'string' },
    numericFormat: { type: 'string' },
    dateTimeFormat: { type: 'string' },
    preserveFormatting: { type: 'boolean' },
  },
  required: ['name', 'text', 'textBefore', 'textAfter', 'numericFormat', 'dateTimeFormat', 'preserveFormatting'],
} as const;

export const mergeBlockSchema = {
  type: 'object',
  'x-type': 'MergeBlock',
  properties: {
    name: { type: 'string' },
    mergeFields: { type: 'array', items: mergeFieldSchema },
    mergeBlocks: {
      type: 'array',
      items: { type: 'object', 'x-type': 'MergeBlock', description: 'a nested merge block of the same shape' },
    },
  },
  required: ['name', 'mergeFields', 'mergeBlocks'],
} as const;

export const chartInfoSchema = {
  type: 'object',
  'x-type': 'ChartInfo',
  description: 'a chart and the merge block whose rows it shows (docsmith extension)',
  properties: {
    name: { type: 'string', description: "the chart's name, which names the block it shows" },
    mergeBlock: { type: ['string', 'null'], description: 'the block the chart is bound to, or null' },
    series: { type: 'array', items: { type: 'string' }, description: 'each series shows the column named like it' },
    problem: {
      type: ['string', 'null'],
      description: 'why the chart cannot show merged data (it then keeps its design-time data), or null',
    },
  },
  required: ['name', 'mergeBlock', 'series', 'problem'],
} as const;

export const templateInfoSchema = {
  type: 'object',
  'x-type': 'TemplateInfo',
  properties: {
    templateName: { type: 'string' },
    mergeBlocks: { type: 'array', items: mergeBlockSchema },
    mergeFields: { type: 'array', items: mergeFieldSchema },
    userDocumentProperties: { type: 'object', additionalProperties: { type: 'string' } },
    templateSyntax: { type: 'string', description: 'docsmith: the syntax its tags are typed in, when not word (templateSyntax on upload)' },
    charts: { type: 'array', items: chartInfoSchema, description: 'present only when the template has charts' },
    warnings: {
      type: 'array',
      items: { type: 'string' },
      description:
        'what would merge otherwise than its author likely meant (a block over part of a table row); present only when there is one',
    },
  },
  required: ['templateName', 'mergeBlocks', 'mergeFields', 'userDocumentProperties'],
} as const;

export const incorrectWordSchema = {
  type: 'object',
  'x-type': 'IncorrectWord',
  properties: {
    length: { type: 'integer' },
    start: { type: 'integer' },
    text: { type: 'string' },
    isDuplicate: { type: 'boolean' },
    language: { type: 'string' },
  },
  required: ['length', 'start', 'text', 'isDuplicate', 'language'],
} as const;

export const trackedChangeSchema = {
  type: 'object',
  'x-type': 'TrackedChange',
  properties: {
    id: { type: 'integer' },
    changeKind: { type: 'integer', description: '4096 inserted text, 8192 deleted text, 16384 formatting, 32768 paragraph mark' },
    changeTime: { type: 'string' },
    userName: { type: 'string' },
    text: { type: 'string' },
    start: { type: 'integer' },
    length: { type: 'integer' },
    highlightMode: { type: 'integer' },
    highlightColor: { type: 'string' },
    defaultHighlightColor: { type: 'string' },
  },
  required: [
    'id',
    'changeKind',
    'changeTime',
    'userName',
    'text',
    'start',
    'length',
    'highlightMode',
    'highlightColor',
    'defaultHighlightColor',
  ],
} as const;

/** A stored template's version, as GET /v1/templates/versions lists it (docsmith extension). */
export const templateVersionSchema = {
  type: 'object',
  'x-type': 'TemplateVersion',
  properties: {
    version: { type: 'integer' },
    current: { type: 'boolean' },
    modified: { type: 'string', format: 'date-time' },
    size: { type: 'integer' },
    sha256: { type: 'string' },
  },
  required: ['version', 'current', 'modified', 'size', 'sha256'],
} as const;

const namesDiffSchema = {
  type: 'object',
  properties: { added: { type: 'array', items: { type: 'string' } }, removed: { type: 'array', items: { type: 'string' } } },
  required: ['added', 'removed'],
} as const;

/** What changed between two versions of a template: field and block paths ("items/price") (docsmith extension). */
export const templateDiffSchema = {
  type: 'object',
  'x-type': 'TemplateDiff',
  properties: { from: { type: 'integer' }, to: { type: 'integer' }, fields: namesDiffSchema, blocks: namesDiffSchema },
  required: ['from', 'to', 'fields', 'blocks'],
} as const;

const indexes = { type: 'array', items: { type: 'integer' } } as const;
/** What POST /v1/document/checkdata answers, records by index from 0 (docsmith extension). */
export const dataCheckSchema = {
  type: 'object',
  'x-type': 'DataCheck',
  properties: {
    records: { type: 'integer' },
    missingFields: {
      type: 'array',
      description: 'Fields with no value in some records; block: the block (a/b when nested) the field sits in',
      items: {
        type: 'object',
        properties: { name: { type: 'string' }, block: { type: ['string', 'null'] }, records: indexes },
        required: ['name', 'block', 'records'],
      },
    },
    emptyBlocks: {
      type: 'array',
      description: 'Blocks with no rows in some records',
      items: { type: 'object', properties: { name: { type: 'string' }, records: indexes }, required: ['name', 'records'] },
    },
    unusedData: {
      type: 'array',
      description: "Keys nothing reads: a record's own, or a block row's as block.key",
      items: { type: 'string' },
    },
  },
  required: ['records', 'missingFields', 'emptyBlocks', 'unusedData'],
} as const;

/** A background job (async=true on merge, append and convert; docsmith extension). */
export const jobSchema = {
  type: 'object',
  'x-type': 'Job',
  properties: {
    id: { type: 'string' },
    kind: { type: 'string', enum: JOB_KINDS },
    state: { type: 'string', enum: ['queued', 'running', 'done', 'failed'] },
    createdAt: { type: 'string', description: 'ISO 8601' },
    startedAt: { type: ['string', 'null'] },
    finishedAt: { type: ['string', 'null'] },
    expiresAt: { type: ['string', 'null'], description: 'when a finished job and its result are removed' },
    attempts: { type: 'integer', description: 'how often a server took it up (more than 1: one stopped while running it)' },
    progress: {
      type: ['object', 'null'],
      description:
        'while running: the stage and how far it is, done of total: merging (records), converting (documents), layout (the office lays one document out; no count), pages (the pages the office has written of that document), joining (parts)',
      properties: { stage: { type: 'string' }, done: { type: 'integer' }, total: { type: 'integer' } },
      required: ['stage'],
    },
    summary: {
      type: ['object', 'null'],
      description: 'what the job works on: the return format, the stored template and records (merge), the documents (append, convert)',
      properties: {
        format: { type: 'string' },
        template: { type: 'string', description: 'a stored template by name (absent: the template came with the request)' },
        records: { type: 'integer' },
        documents: { type: 'integer' },
      },
      required: ['format'],
    },
    resultBytes: { type: ['integer', 'null'], description: "a done job's stored result, in bytes" },
    error: {
      type: ['object', 'null'],
      description: 'a failed job: the status and message the request would have had',
      properties: { status: { type: 'integer' }, message: { type: 'string' } },
      required: ['status', 'message'],
    },
    callback: {
      type: ['object', 'null'],
      properties: {
        url: { type: 'string' },
        state: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
        attempts: { type: 'integer' },
        lastError: { type: ['string', 'null'] },
      },
      required: ['url', 'state', 'attempts', 'lastError'],
    },
    links: {
      type: 'object',
      properties: { self: { type: 'string' }, result: { type: 'string' } },
      required: ['self', 'result'],
    },
  },
  required: [
    'id',
    'kind',
    'state',
    'createdAt',
    'startedAt',
    'finishedAt',
    'expiresAt',
    'attempts',
    'progress',
    'summary',
    'resultBytes',
    'error',
    'callback',
    'links',
  ],
} as const;

/** docsmith: PDF output signed with the server's certificate, and tagged PDF/UA. */
export const pdfOutputQueryProperties = {
  signature: {
    type: 'string',
    description:
      "none, invisible or visible (docsmith): sign PDF and PDFA output (visible: a stamp on the last page), or not; absent: the account's default. Only for accounts the operator granted signing (else 403); signed with the account's own certificate, else the server's",
  },
  accessible: {
    type: 'string',
    description:
      "true (docsmith): tagged PDF/UA output (PDF or PDFA) with a structure tree, the title (mergeSettings.documentTitle or the template's) and the template's language",
  },
} as const;

/** The query parameters that make merge, append and convert a background job. */
export const asyncQueryProperties = {
  async: {
    type: 'string',
    description:
      'true: answer 202 with a job at once and do the work in the background (docsmith extension). A submission sent again with the same Idempotency-Key header gets the job the first one made',
  },
  callbackUrl: { type: 'string', description: 'with async=true: POSTed an HMAC-signed notice when the job ends' },
} as const;
