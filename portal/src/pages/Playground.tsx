import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useLocation } from 'wouter-preact';
import { MERGE_DEFAULTS, sampleRecord, type MergeSettings, type ReturnFormat, type TemplateInfo, type Signature } from '@docsmith/client';
import { allowsTestRuns, describeError, useSession } from '../session';
import { useAction, useLoad } from '../hooks';
import { Notice } from '../components/Notice';
import { JsonEditor } from '../components/JsonEditor';
import { PageImages } from '../components/PageImages';
import { baseName, extensionOf, pngDataUrl, saveBytes } from '../files';
import { FormatSelect } from '../components/FormatSelect';
import { templatePath } from '../links';
import { takeOfferedData } from '../offered';
import { checkMergeData } from '../json';

type Switch =
  'removeEmptyFields' | 'removeEmptyBlocks' | 'removeEmptyLines' | 'removeEmptyImages' | 'removeTrailingWhitespace' | 'mergeHtml';
const SWITCHES: { name: Switch; label: string }[] = [
  { name: 'removeEmptyFields', label: 'Remove fields without data' },
  { name: 'removeEmptyBlocks', label: 'Remove blocks without data' },
  { name: 'removeEmptyLines', label: 'Remove lines left empty' },
  { name: 'removeEmptyImages', label: 'Remove image placeholders without data' },
  { name: 'removeTrailingWhitespace', label: 'Remove trailing white space' },
  { name: 'mergeHtml', label: 'Values are HTML' },
];

/**
 * Suggestions for the culture field; any culture name the server knows may be typed (it answers
 * which it does not). Shown with their names in the browser's language.
 */
const CULTURES = [
  'en-US',
  'en-GB',
  'en-AU',
  'en-CA',
  'en-IE',
  'en-IN',
  'en-NZ',
  'en-ZA',
  'de-DE',
  'de-AT',
  'de-CH',
  'fr-FR',
  'fr-BE',
  'fr-CA',
  'fr-CH',
  'es-ES',
  'es-MX',
  'es-AR',
  'es-CO',
  'es-US',
  'it-IT',
  'it-CH',
  'nl-NL',
  'nl-BE',
  'pt-PT',
  'pt-BR',
  'pl-PL',
  'cs-CZ',
  'sk-SK',
  'hu-HU',
  'ro-RO',
  'bg-BG',
  'hr-HR',
  'sl-SI',
  'sr-RS',
  'el-GR',
  'tr-TR',
  'ru-RU',
  'uk-UA',
  'lt-LT',
  'lv-LV',
  'et-EE',
  'fi-FI',
  'sv-SE',
  'nb-NO',
  'da-DK',
  'is-IS',
  'he-IL',
  'ar-SA',
  'ar-AE',
  'fa-IR',
  'hi-IN',
  'th-TH',
  'vi-VN',
  'id-ID',
  'ms-MY',
  'zh-CN',
  'zh-TW',
  'zh-HK',
  'ja-JP',
  'ko-KR',
];

function cultureLabel(name: string): string {
  try {
    return new Intl.DisplayNames(undefined, { type: 'language' }).of(name) ?? name;
  } catch {
    return name;
  }
}

function fieldNames(info: TemplateInfo): string[] {
  return info.mergeFields.map((f) => f.name.split('.')[0]!).concat(info.mergeBlocks.map((b) => b.name.split('.')[0]!));
}

/** Merge playground: edit JSON against a template, see its pages, download the result. */
export function Playground({ name }: { name: string | undefined }) {
  const { client } = useSession();
  const [, navigate] = useLocation();
  const templates = useLoad(() => client.listTemplates(), []);
  const settings = useLoad(() => client.accountSettings(), []);
  const info = useLoad(async () => (name ? client.templateInfo(name) : undefined), [name]);
  const offered = useMemo(() => takeOfferedData(name), [name]);
  const sample = useMemo(
    () => offered ?? (info.data ? JSON.stringify([sampleRecord(info.data)], null, 2) : '[\n  {}\n]'),
    [info.data, offered],
  );
  const [text, setText] = useState(sample);
  // The editor owns its text while one types; only these replacements (a new sample) are pushed
  // into it, each with a new version.
  const [replaced, setReplaced] = useState(0);
  const replaceText = (next: string) => {
    setText(next);
    setReplaced((n) => n + 1);
  };
  useEffect(() => replaceText(sample), [sample]);

  const [format, setFormat] = useState<ReturnFormat>('PDF');
  // '' leaves it to the account's default (docsmith: the server signs with the operator's certificate).
  const [signature, setSignature] = useState<'' | Signature>('');
  const [accessible, setAccessible] = useState(false);
  // docsmith: Factur-X e-invoices, built from each record's "einvoice" object (docs/einvoice.md).
  const [einvoice, setEinvoice] = useState(false);
  const [culture, setCulture] = useState(MERGE_DEFAULTS.culture);
  const [append, setAppend] = useState(true);
  const [switches, setSwitches] = useState(
    () => Object.fromEntries(SWITCHES.map(({ name: key }) => [key, MERGE_DEFAULTS[key]])) as Record<Switch, boolean>,
  );
  const mergeSettings: MergeSettings = { ...switches, culture };
  const settingsKey = JSON.stringify(mergeSettings);
  const testRuns = allowsTestRuns(settings.data);
  const [live, setLive] = useState<boolean | undefined>(undefined);
  const liveOn = live ?? testRuns;
  const checked = useMemo(() => checkMergeData(text), [text]);
  const missing = useMemo(() => {
    if (!checked.ok || !info.data) return [];
    const first = checked.records[0] as Record<string, unknown>;
    return [...new Set(fieldNames(info.data))].filter((field) => !(field in first));
  }, [checked, info.data]);

  const [pages, setPages] = useState<string[]>([]);
  const [previewed, setPreviewed] = useState<string | undefined>(undefined);
  const [previewError, setPreviewError] = useState<string | undefined>(undefined);
  const [rendering, setRendering] = useState(false);
  const round = useRef(0);
  const preview = async () => {
    if (!name || !checked.ok) return;
    const mine = ++round.current;
    const source = `${settingsKey}\n${text}`;
    setRendering(true);
    setPreviewError(undefined);
    try {
      const images = await client.preview({
        templateName: name,
        mergeData: checked.records,
        mergeSettings,
        test: testRuns,
        zoomFactor: 75,
      });
      if (mine === round.current) {
        setPages(images.map(pngDataUrl));
        setPreviewed(source);
      }
    } catch (failure) {
      if (mine === round.current) setPreviewError(describeError(failure));
    } finally {
      if (mine === round.current) setRendering(false);
    }
  };
  const fresh = !rendering && previewed === `${settingsKey}\n${text}`;
  // Live preview: shortly after the last edit, when the data is valid.
  useEffect(() => {
    if (!liveOn || !name || !checked.ok) return;
    const timer = setTimeout(() => void preview(), 700);
    return () => clearTimeout(timer);
  }, [liveOn, name, text, settingsKey]);

  const action = useAction();
  const download = () =>
    action.run(async () => {
      if (!name || !checked.ok) return;
      const pdf = format === 'PDF' || format === 'PDFA';
      const signed = {
        ...(pdf && signature ? { signature } : {}),
        ...(pdf && accessible ? { accessible } : {}),
        ...(pdf && einvoice ? { einvoice: 'factur-x' as const } : {}),
      };
      const documents = await client.merge({
        templateName: name,
        mergeData: checked.records,
        returnFormat: format,
        append,
        mergeSettings,
        ...signed,
      });
      const ext = extensionOf(format);
      documents.forEach((document, i) =>
        saveBytes(document, documents.length === 1 ? `${baseName(name)}.${ext}` : `${baseName(name)}-${i + 1}.${ext}`, format),
      );
      settings.reload();
      return `Merged ${documents.length} document${documents.length === 1 ? '' : 's'} as ${format}.`;
    });

  return (
    <main>
      <h1>Merge playground</h1>
      <div class="toolbar">
        <label>
          Template
          <select
            value={name ?? ''}
            onChange={(e) => navigate(e.currentTarget.value ? templatePath(e.currentTarget.value, 'playground') : '/playground')}
          >
            <option value="">Choose a template…</option>
            {(templates.data ?? []).map((t) => (
              <option key={t.templateName} value={t.templateName}>
                {t.templateName}
              </option>
            ))}
          </select>
        </label>
        <FormatSelect value={format} onChange={setFormat} />
        {(format === 'PDF' || format === 'PDFA') && (
          <label>
            Signature
            <select value={signature} onChange={(e) => setSignature(e.currentTarget.value as '' | Signature)}>
              <option value="">As the account says</option>
              <option value="none">Not signed</option>
              <option value="invisible">Signed, no stamp</option>
              <option value="visible">Signed, with a stamp</option>
            </select>
          </label>
        )}
        {(format === 'PDF' || format === 'PDFA') && (
          <label class="check">
            <input type="checkbox" checked={accessible} onChange={(e) => setAccessible(e.currentTarget.checked)} />
            Accessible (PDF/UA)
          </label>
        )}
        {(format === 'PDF' || format === 'PDFA') && (
          <label class="check" title="PDF/A-3 with factur-x.xml built from each record's einvoice data">
            <input type="checkbox" checked={einvoice} onChange={(e) => setEinvoice(e.currentTarget.checked)} />
            E-invoice (Factur-X)
          </label>
        )}
        <label>
          Culture
          <input
            type="text"
            list="cultures"
            value={culture}
            spellcheck={false}
            autocomplete="off"
            onChange={(e) => setCulture(e.currentTarget.value.trim() || MERGE_DEFAULTS.culture)}
          />
          <datalist id="cultures">
            {CULTURES.map((c) => (
              <option key={c} value={c}>
                {cultureLabel(c)}
              </option>
            ))}
          </datalist>
        </label>
        <label class="check">
          <input type="checkbox" checked={append} onChange={(e) => setAppend(e.currentTarget.checked)} /> One document for all records
        </label>
      </div>
      <details class="settings">
        <summary>Merge settings</summary>
        <div class="switches">
          {SWITCHES.map(({ name: key, label }) => (
            <label key={key} class="check">
              <input
                type="checkbox"
                checked={switches[key]}
                onChange={(e) => {
                  const on = e.currentTarget.checked;
                  setSwitches((old) => ({ ...old, [key]: on }));
                }}
              />{' '}
              {label} <code class="muted">{key}</code>
            </label>
          ))}
        </div>
      </details>
      <Notice error={templates.error ?? info.error} />
      {!name ? (
        <p class="muted">Choose a template to merge data into.</p>
      ) : (
        <div class="split playground">
          <section>
            <div class="section-head">
              <h2>Data</h2>
              <button type="button" onClick={() => replaceText(sample)} disabled={!info.data}>
                Sample data
              </button>
            </div>
            <JsonEditor label="Merge data (JSON)" value={text} version={replaced} onChange={setText} />
            {checked.ok ? (
              <p class="muted" role="status">
                Valid: {checked.records.length} record{checked.records.length === 1 ? '' : 's'}.
                {missing.length > 0 && ` Not in the first record: ${missing.join(', ')}.`}
              </p>
            ) : (
              <p class="notice error" role="alert">
                {checked.message}
              </p>
            )}
            <div class="actions">
              <button type="button" class="primary" disabled={!checked.ok || action.busy} onClick={() => void download()}>
                {action.busy ? 'Merging…' : `Merge and download ${format === 'PDFA' ? 'PDF/A' : format}`}
              </button>
            </div>
            <Notice error={action.error} done={action.done} />
          </section>
          <section>
            <div class="section-head">
              <h2>Preview</h2>
              <label class="check">
                <input type="checkbox" checked={liveOn} onChange={(e) => setLive(e.currentTarget.checked)} /> Live
              </label>
              <button type="button" disabled={!checked.ok || rendering} onClick={() => void preview()}>
                {rendering ? 'Rendering…' : 'Preview'}
              </button>
            </div>
            <p class="muted small">
              {testRuns ? 'Previews are test runs: watermarked and not counted.' : 'Each preview counts as one document of your quota.'}
            </p>
            <Notice error={previewError} />
            {pages.length > 0 && !fresh && !rendering && (
              <p class="muted small">The preview shows earlier data; preview again to update it.</p>
            )}
            <div class="preview" data-fresh={String(fresh)}>
              {pages.length > 0 ? (
                <PageImages name="Preview" sources={pages} />
              ) : (
                <p class="muted">{rendering ? 'Rendering…' : 'No preview yet.'}</p>
              )}
            </div>
          </section>
        </div>
      )}
    </main>
  );
}
