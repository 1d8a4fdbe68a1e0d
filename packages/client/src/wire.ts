// Generated from the server's schemas by scripts/client-types.ts; do not edit by hand.

/**
 * a JSON object with "mergeData" (and "template" when no templateName is given)
 */
export interface MergeBody {
  /**
   * an array of records (JSON objects) or one record
   *
   * @minItems 1
   *
   * Items: a record (a JSON object)
   */
  mergeData: {
    [k: string]: unknown;
  }[];
  /**
   * the template (DOCX, DOC, RTF or TX) as a Base64 string, when no templateName is given
   */
  template?: string;
  mergeSettings?: MergeSettings;
  /**
   * with einvoice=factur-x (docsmith): the invoice as Cross Industry Invoice XML text, attached as sent (any Factur-X profile); absent: built from the record (docs/einvoice.md)
   */
  einvoiceXml?: string;
}
/**
 * a JSON object of merge options (removeEmptyFields, removeEmptyBlocks, removeEmptyImages, removeEmptyLines, removeTrailingWhitespace, mergeHtml, culture; docsmith: timezone, complement, translations) and document properties
 */
export interface MergeSettings {
  /**
   * true or false
   */
  removeEmptyFields?: boolean;
  /**
   * true or false
   */
  removeEmptyBlocks?: boolean;
  /**
   * true or false
   */
  removeEmptyImages?: boolean;
  /**
   * true or false
   */
  removeEmptyLines?: boolean;
  /**
   * true or false
   */
  removeTrailingWhitespace?: boolean;
  /**
   * true or false
   */
  mergeHtml?: boolean;
  /**
   * a culture name such as en-US or de-DE, for number and date formats
   */
  culture?: string;
  /**
   * docsmith: an IANA time zone such as Europe/Paris: a date value written with an offset (2024-05-06T07:08:09Z) shows its time there; absent, as written
   */
  timezone?: string;
  /**
   * docsmith: values every record shares, read by the fields $c.name (Carbone tags: {c.name})
   */
  complement?: {
    [k: string]: unknown;
  };
  /**
   * docsmith: translation tables by language for Carbone tags {t(text)}, as Carbone takes them: {"fr-fr": {"Total": "Somme"}}; the one for the culture is used
   */
  translations?: {
    [k: string]: {
      [k: string]: string;
    };
  };
  /**
   * the author written into the document properties
   */
  author?: string;
  /**
   * the title written into the document properties (at most 2000 characters for PDF)
   */
  documentTitle?: string;
  /**
   * the subject written into the document properties (at most 2000 characters for PDF)
   */
  documentSubject?: string;
  /**
   * the creating application written into the document properties
   */
  creatorApplication?: string;
  /**
   * a date like 2024-05-06T07:08:09Z
   */
  creationDate?: string;
  /**
   * a date like 2024-05-06T07:08:09Z
   */
  lastModificationDate?: string;
  /**
   * a password to open the document, for PDF and DOCX/DOC output (ignored by formats that cannot carry one)
   */
  userPassword?: string;
}
/**
 * a JSON object with "findAndReplaceData" (and "template" when no templateName is given)
 */
export interface FindAndReplaceBody {
  /**
   * an array of ["find", "replace"] pairs
   *
   * @minItems 1
   */
  findAndReplaceData: [string, string][];
  /**
   * the template (DOCX, DOC, RTF or TX) as a Base64 string, when no templateName is given
   */
  template?: string;
  mergeSettings?: MergeSettings;
}
/**
 * a JSON object with "documents"
 */
export interface AppendBody {
  /**
   * an array of {"document": "<Base64>", "documentDivider": 1|2|3}
   *
   * @minItems 1
   * @maxItems 1000
   *
   * Items: an object with "document" and "documentDivider"
   */
  documents: {
    /**
     * the document (DOCX, DOC, RTF, TX or HTML) as a Base64 string
     */
    document: string;
    /**
     * 1 (None), 2 (NewParagraph) or 3 (NewSection)
     */
    documentDivider?: number;
  }[];
  documentSettings?: DocumentSettings;
}
/**
 * a JSON object of document properties (author, documentTitle, documentSubject, creatorApplication, creationDate, lastModificationDate, userPassword)
 */
export interface DocumentSettings {
  /**
   * the author written into the document properties
   */
  author?: string;
  /**
   * the title written into the document properties (at most 2000 characters for PDF)
   */
  documentTitle?: string;
  /**
   * the subject written into the document properties (at most 2000 characters for PDF)
   */
  documentSubject?: string;
  /**
   * the creating application written into the document properties
   */
  creatorApplication?: string;
  /**
   * a date like 2024-05-06T07:08:09Z
   */
  creationDate?: string;
  /**
   * a date like 2024-05-06T07:08:09Z
   */
  lastModificationDate?: string;
  /**
   * a password to open the document, for PDF and DOCX/DOC output (ignored by formats that cannot carry one)
   */
  userPassword?: string;
}
export interface AccountSettings {
  /**
   * FREE, TRIAL or the serial number of the licence
   */
  serialNumber: string;
  /**
   * documents created this calendar month (UTC); the count starts again on the 1st
   */
  createdDocuments: number;
  uploadedTemplates: number;
  /**
   * documents allowed per calendar month
   */
  maxDocuments: number;
  maxTemplates: number;
  /**
   * YYYY-MM-DDTHH:MM:SS+00:00 (9999-12-31T00:00:00+00:00 when the account does not expire: year 9999 in every time zone)
   */
  validUntil: string;
  /**
   * proofing calls this calendar month (UTC)
   */
  proofingTransactions: number;
  /**
   * proofing calls allowed per calendar month
   */
  maxProofingTransactions: number;
}
export interface ApiKey {
  key: string;
  active: boolean;
}
export interface ApiKeyDetails {
  /**
   * The key's number, which the calls below take
   */
  id: number;
  /**
   * The owner's label ('' when none)
   */
  name: string;
  /**
   * The first and last four characters, e.g. "xFLD…Gr3u"
   */
  masked: string;
  active: boolean;
  createdAt: string;
  /**
   * When it last signed a request in, to the minute
   */
  lastUsedAt: string | null;
  /**
   * What the key may do; fixed when it is made
   */
  scope: 'full' | 'merge' | 'read';
}
export interface AuditEvent {
  id: number;
  at: string;
  /**
   * sign-in failed, key created, key renamed, key revoked, template uploaded, template replaced, template rolled back, template deleted, account created, account changed
   */
  action: string;
  /**
   * key 3 "Billing", password, or operator (CLI)
   */
  actor: string;
  /**
   * the client's address (null: the CLI)
   */
  address: string | null;
  detail: string;
}
export interface TemplateListEntry {
  templateName: string;
  /**
   * YYYY-MM-DDTHH:MM:SS+00:00
   */
  modified: string;
  /**
   * bytes
   */
  size: number;
}
/**
 * a live share link, as listed (its token is shown only once, when it is made)
 */
export interface ShareLink {
  id: string;
  templateName: string;
  created: string;
  expires: string;
}
export interface MergeField {
  name: string;
  text: string;
  textBefore: string;
  textAfter: string;
  numericFormat: string;
  dateTimeFormat: string;
  preserveFormatting: boolean;
}
export interface MergeBlock {
  name: string;
  mergeFields: MergeField[];
  mergeBlocks: MergeBlock[];
}
/**
 * a chart and the merge block whose rows it shows (docsmith extension)
 */
export interface ChartInfo {
  /**
   * the chart's name, which names the block it shows
   */
  name: string;
  /**
   * the block the chart is bound to, or null
   */
  mergeBlock: string | null;
  /**
   * each series shows the column named like it
   */
  series: string[];
  /**
   * why the chart cannot show merged data (it then keeps its design-time data), or null
   */
  problem: string | null;
}
export interface TemplateInfo {
  templateName: string;
  mergeBlocks: MergeBlock[];
  mergeFields: MergeField[];
  userDocumentProperties: {
    [k: string]: string;
  };
  /**
   * docsmith: the syntax its tags are typed in, when not word (templateSyntax on upload)
   */
  templateSyntax?: string;
  /**
   * present only when the template has charts
   */
  charts?: ChartInfo[];
  /**
   * what would merge otherwise than its author likely meant (a block over part of a table row); present only when there is one
   */
  warnings?: string[];
}
export interface IncorrectWord {
  length: number;
  start: number;
  text: string;
  isDuplicate: boolean;
  language: string;
}
export interface TrackedChange {
  id: number;
  /**
   * 4096 inserted text, 8192 deleted text, 16384 formatting, 32768 paragraph mark
   */
  changeKind: number;
  changeTime: string;
  userName: string;
  text: string;
  start: number;
  length: number;
  highlightMode: number;
  highlightColor: string;
  defaultHighlightColor: string;
}
export interface Job {
  id: string;
  kind: 'merge' | 'append' | 'convert';
  state: 'queued' | 'running' | 'done' | 'failed';
  /**
   * ISO 8601
   */
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  /**
   * when a finished job and its result are removed
   */
  expiresAt: string | null;
  /**
   * how often a server took it up (more than 1: one stopped while running it)
   */
  attempts: number;
  /**
   * while running: the stage and how far it is, done of total: merging (records), converting (documents), layout (the office lays one document out; no count), pages (the pages the office has written of that document), joining (parts)
   */
  progress: {
    stage: string;
    done?: number;
    total?: number;
  } | null;
  /**
   * what the job works on: the return format, the stored template and records (merge), the documents (append, convert)
   */
  summary: {
    format: string;
    /**
     * a stored template by name (absent: the template came with the request)
     */
    template?: string;
    records?: number;
    documents?: number;
  } | null;
  /**
   * a done job's stored result, in bytes
   */
  resultBytes: number | null;
  /**
   * a failed job: the status and message the request would have had
   */
  error: {
    status: number;
    message: string;
  } | null;
  callback: {
    url: string;
    state: 'pending' | 'delivered' | 'failed';
    attempts: number;
    lastError: string | null;
  } | null;
  links: {
    self: string;
    result: string;
  };
}
export interface TemplateVersion {
  version: number;
  current: boolean;
  modified: string;
  size: number;
  sha256: string;
}
export interface TemplateDiff {
  from: number;
  to: number;
  fields: {
    added: string[];
    removed: string[];
  };
  blocks: {
    added: string[];
    removed: string[];
  };
}
export interface DataCheck {
  records: number;
  /**
   * Fields with no value in some records; block: the block (a/b when nested) the field sits in
   */
  missingFields: {
    name: string;
    block: string | null;
    records: number[];
  }[];
  /**
   * Blocks with no rows in some records
   */
  emptyBlocks: {
    name: string;
    records: number[];
  }[];
  /**
   * Keys nothing reads: a record's own, or a block row's as block.key
   */
  unusedData: string[];
}

/** What every merge starts from before its mergeSettings (the server's own defaults). */
export const MERGE_DEFAULTS = {
  removeEmptyFields: true,
  removeEmptyBlocks: true,
  removeEmptyLines: false,
  removeEmptyImages: false,
  mergeHtml: false,
  removeTrailingWhitespace: true,
  culture: 'en-US',
};
