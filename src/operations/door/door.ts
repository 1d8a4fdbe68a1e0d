/**
 * The one door for document work. Routes, background jobs and the CLI hand `perform` a typed
 * request (kinds/); the door alone applies what the request's row says: the account's guard
 * (licence, quota, merge slots), the time limit, the abort signal, and the PDF finishing (signing,
 * e-invoices). It names no kind.
 */
import type { PdfSigning, SigningPlan } from '../../documents/signing.js';
import type { AuditLog, Who } from '../../accounts/audit.js';
import type { EInvoices } from '../../documents/einvoice.js';
import type { Account } from '../../store/types.js';
import type { Claimed, UsageGuard } from '../../accounts/usage.js';
import type { TemplateLibrary } from '../../templates/library.js';
import type { DocumentPipeline } from '../io.js';
import { InputError } from '../../errors.js';
import { normalName } from '../../templates/names.js';
import { withTimeLimit } from '../../util/timeLimit.js';
import { DOCUMENT_FORMATS, requireFormat, type DocumentFormat } from '../../formats/detect.js';
import { asSyntax } from '../../merge/syntax/index.js';
import type { DocumentOperations, WorkContext, WorkProgress } from '../index.js';
import { rowOf, type DocumentRequest, type Kind, type RequestOf, type Results } from '../kinds/index.js';
import type { Answer, PdfFinish, Source, Work } from '../work.js';

export interface PerformOptions<T> {
  /** The processing limit (background jobs have their own); default: the request limit; null: none (the CLI). */
  timeLimitMs?: number | null;
  progress?: (progress: WorkProgress) => void;
  /** Stops the work (a cancelled job). */
  signal?: AbortSignal;
  /** A last check of the result while the work still counts as running: throwing refunds the document. */
  accept?: (result: T) => Promise<void>;
  /** Hands the result over (sends it); a document is counted only when this resolves, and refunded when it throws. */
  deliver?: (result: T) => Promise<void>;
  /** Names the work (a job's id): counted once however often it is taken up (see UsageGuard). */
  workKey?: string;
  /** Who asked, for the audit log (signing is recorded). */
  who?: Who;
}

export interface DoorParts {
  usage: UsageGuard;
  pipeline: DocumentPipeline;
  operations: DocumentOperations;
  templates: TemplateLibrary;
  processingLimitMs: number | null;
  /** Signs PDF output (documents/signing.ts); absent: nothing is signed (the CLI in this process). */
  signing?: PdfSigning;
  /** Attaches e-invoices to merged PDFs (documents/einvoice.ts). */
  einvoices?: EInvoices;
  /** Records each signing in the account's audit log. */
  audit?: AuditLog;
}

/** The stored template a request reads, by its normal name: its version comes with the usage claim. */
function storedTemplate(request: DocumentRequest): string | undefined {
  if ('source' in request && 'templateName' in request.source) return normalName(request.source.templateName);
  return undefined;
}

export class Door {
  constructor(private readonly parts: DoorParts) {}

  /**
   * Performs the request for the account (null: no account, as in the CLI: nothing is counted and
   * no stored template can be named).
   */
  perform<K extends Kind>(account: Account | null, request: RequestOf<K>, options: PerformOptions<Results[K]> = {}): Promise<Results[K]> {
    const row = rowOf(request);
    const limitMs = options.timeLimitMs === undefined ? this.parts.processingLimitMs : options.timeLimitMs;
    const run = async (signal: AbortSignal, deadline: number | undefined, claimed: Claimed): Promise<Results[K]> => {
      // Every refusal of signing comes before the work it would waste.
      const finish = row.pdf?.(request);
      const signing = await this.plan(account, finish);
      const work = this.work(account, { signal, deadline, progress: options.progress }, claimed);
      const done = await this.invoiced(finish, () => row.run(request, work), signal);
      const result = signing ? await this.signed(account, done, signing, signal, options.who) : done;
      await options.accept?.(result);
      return result;
    };
    if (account && row.counted) {
      const guard = {
        test: 'test' in request && request.test,
        merge: row.slot,
        timeLimitMs: limitMs ?? undefined,
        signal: options.signal,
        workKey: options.workKey,
        template: storedTemplate(request),
      };
      return this.parts.usage.run(account, guard, run, options.deliver);
    }
    return (async () => {
      const result = await withTimeLimit(limitMs, (signal, deadline) => run(signal, deadline, {}), options.signal);
      await options.deliver?.(result);
      return result;
    })();
  }

  /** A merge's PDFs with their e-invoices attached; the invoices come first, so wrong invoice data costs no merge or office time. */
  private async invoiced<R>(finish: PdfFinish | undefined, perform: () => Promise<R>, signal: AbortSignal): Promise<R> {
    if (!finish?.einvoice) return perform();
    const einvoices = this.parts.einvoices;
    if (!einvoices) throw new InputError('E-invoices are made by a docsmith server; this one cannot make them.');
    const invoices = await einvoices.prepare({ einvoice: finish.einvoice.asked, records: finish.einvoice.records }, signal);
    const answer = (await perform()) as unknown as Answer;
    return { ...answer, documents: await einvoices.attach(answer.documents, invoices, signal) } as R;
  }

  /** How the request's PDF output is signed (as it asks, else as the account's default), or null; refusals throw here. */
  signingPlan(account: Account | null, request: DocumentRequest): Promise<SigningPlan | null> {
    return this.plan(account, rowOf(request).pdf?.(request));
  }

  private plan(account: Account | null, finish: PdfFinish | undefined): Promise<SigningPlan | null> {
    if (!finish) return Promise.resolve(null);
    const ask = { signature: finish.signature, pdf: finish.format === 'pdf' || finish.format === 'pdfa', password: finish.password };
    if (!this.parts.signing) {
      if (ask.pdf && (ask.signature ?? 'none') !== 'none')
        throw new InputError('PDFs are signed by a docsmith server; this one cannot sign.');
      return Promise.resolve(null);
    }
    return this.parts.signing.prepare(account, ask);
  }

  /** The PDFs signed as planned, and the signing recorded in the account's audit log. */
  private async signed<R>(account: Account | null, result: R, plan: SigningPlan, signal: AbortSignal, who?: Who): Promise<R> {
    const answer = result as unknown as Answer;
    const documents = await this.parts.signing!.sign(answer.documents, plan, signal);
    if (account && this.parts.audit) {
      const count = documents.length === 1 ? 'a PDF' : `${documents.length} PDFs`;
      await this.parts.audit.record(
        account.id,
        'PDF signed',
        who ?? { actor: 'request', address: null },
        `${count}, ${plan.mode}, as "${plan.subject}"`,
      );
    }
    return { ...answer, documents } as R;
  }

  private work(account: Account | null, ctx: WorkContext, claimed: Claimed): Work {
    const { pipeline, templates, operations } = this.parts;
    return {
      operations,
      ctx,
      template: (source) => pipeline.templateSource(account, source, claimed.template),
      countProofing: async () => {
        if (account) await this.parts.usage.countProofing(account);
      },
      source: async (source: Source) => {
        if (!('templateName' in source))
          return {
            bytes: source.bytes,
            format: source.format ?? requireFormat(source.bytes, DOCUMENT_FORMATS),
            name: source.name ?? 'document',
            syntax: source.syntax ?? 'word',
          };
        const stored = await templates.resolve(account, source.templateName, {
          current: claimed.template,
          version: source.templateVersion,
        });
        return {
          bytes: stored.data,
          format: stored.format as DocumentFormat,
          name: source.templateName,
          syntax: source.syntax ?? asSyntax(stored.syntax),
        };
      },
    };
  }
}
