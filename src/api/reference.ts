/** Renders the OpenAPI description as one self-contained HTML page (no scripts, no CDN). */

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: { type?: string | string[] };
}
interface BodySchema {
  type?: string | string[];
  description?: string;
  properties?: Record<string, { description?: string }>;
  required?: string[];
  examples?: unknown[];
}
interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: BodySchema; example?: unknown }> };
  responses?: Record<string, { description?: string }>;
  /** The endpoint's worked example, given in its route schema (the convention Redoc and others show). */
  'x-codeSamples'?: { lang: string; source: string }[];
}
export interface OpenApiLike {
  info: { title: string; version: string; description?: string };
  paths?: Record<string, Record<string, Operation>>;
}

/**
 * A working example call for each endpoint ($B the base URL, $A the credentials). A route may
 * instead carry its own in its schema, as `x-codeSamples` (a new endpoint does).
 */
const EXAMPLES: Record<string, string> = {
  'get /v1/account/settings': 'curl $A $B/v1/account/settings',
  'get /v1/account/apikeys': 'curl $A $B/v1/account/apikeys',
  'put /v1/account/apikey': 'curl $A -X PUT $B/v1/account/apikey',
  'delete /v1/account/apikey': 'curl $A -X DELETE "$B/v1/account/apikey?key=KEY"',
  'get /v1/account/keys': 'curl $A $B/v1/account/keys',
  'get /v1/account/audit': 'curl $A "$B/v1/account/audit?limit=50"',
  'patch /v1/account/keys/{id}':
    'curl $A -X PATCH $B/v1/account/keys/3 -H "Content-Type: application/json" -d \'{"name":"Invoices (production)"}\'',
  'delete /v1/account/keys/{id}': 'curl $A -X DELETE $B/v1/account/keys/3',
  'get /v1/templates/list': 'curl $A $B/v1/templates/list',
  'get /v1/templates/count': 'curl $A $B/v1/templates/count',
  'get /v1/templates/exists': 'curl $A "$B/v1/templates/exists?templateName=invoice.docx"',
  'get /v1/templates/download': 'curl $A "$B/v1/templates/download?templateName=invoice.docx"',
  'post /v1/templates/upload': 'curl $A -X POST "$B/v1/templates/upload?templateName=invoice.docx" -d "\\"$(base64 -w0 invoice.docx)\\""',
  'delete /v1/templates/delete': 'curl $A -X DELETE "$B/v1/templates/delete?templateName=invoice.docx"',
  'get /v1/templates/info': 'curl $A "$B/v1/templates/info?templateName=invoice.docx"',
  'get /v1/templates/versions': 'curl $A "$B/v1/templates/versions?templateName=invoice.docx"',
  'post /v1/templates/rollback': 'curl $A -X POST "$B/v1/templates/rollback?templateName=invoice.docx&version=2"',
  'get /v1/templates/diff': 'curl $A "$B/v1/templates/diff?templateName=invoice.docx&from=2&to=3"',
  'get /v1/templates/pagecount': 'curl $A "$B/v1/templates/pagecount?templateName=invoice.docx"',
  'get /v1/templates/thumbnails': 'curl $A "$B/v1/templates/thumbnails?templateName=invoice.docx&zoomFactor=50&imageFormat=PNG"',
  'post /v1/document/merge':
    'curl $A -X POST "$B/v1/document/merge?returnFormat=PDF&templateName=invoice.docx" -d \'{"mergeData":[{"customer":"ACME","items":[{"name":"Bolt","qty":5}]}],"mergeSettings":{"culture":"en-US"}}\'',
  'post /v1/document/findandreplace':
    'curl $A -X POST "$B/v1/document/findandreplace?returnFormat=DOCX&templateName=invoice.docx" -d \'{"findAndReplaceData":[["%%NAME%%","ACME"]]}\'',
  'post /v1/document/append':
    'curl $A -X POST "$B/v1/document/append?returnFormat=PDF" -d "{\\"documents\\":[{\\"document\\":\\"$(base64 -w0 a.docx)\\",\\"documentDivider\\":3},{\\"document\\":\\"$(base64 -w0 b.docx)\\",\\"documentDivider\\":3}]}"',
  'post /v1/document/convert': 'curl $A -X POST "$B/v1/document/convert?returnFormat=PDF" -d "\\"$(base64 -w0 letter.docx)\\""',
  'post /v1/document/preview':
    'curl $A -X POST "$B/v1/document/preview?templateName=invoice.docx&zoomFactor=50" -d \'{"mergeData":[{"customer":"ACME"}]}\'',
  'post /v1/document/thumbnails':
    'curl $A -X POST "$B/v1/document/thumbnails?zoomFactor=50&fromPage=1&toPage=0&imageFormat=PNG" -d "\\"$(base64 -w0 letter.pdf)\\""',
  'get /v1/document/share': 'curl $A "$B/v1/document/share?templateName=invoice.docx&expiresInDays=7"   # then open $B/share/TOKEN',
  'get /v1/document/share/list':
    'curl $A "$B/v1/document/share/list"   # [{"id": "...", "templateName": "invoice.docx", "created": "...", "expires": "..."}]',
  'delete /v1/document/share': 'curl $A -X DELETE "$B/v1/document/share?id=LINK_ID"   # 204',
  'get /v1/templates/pageimage': 'curl $A "$B/v1/templates/pageimage?templateName=invoice.docx&page=1&zoom=50" -o page1.png',
  'get /v1/fonts/list': 'curl $A $B/v1/fonts/list',
  'get /v1/proofing/check': 'curl $A "$B/v1/proofing/check?text=Thiss%20is%20a%20testt&language=en_US.dic"',
  'get /v1/proofing/suggestions': 'curl $A "$B/v1/proofing/suggestions?word=Thiss&language=en_US.dic&max=5"',
  'get /v1/proofing/availabledictionaries': 'curl $A $B/v1/proofing/availabledictionaries',
  'post /v1/processing/review/trackedchanges':
    'curl $A -X POST $B/v1/processing/review/trackedchanges -d "\\"$(base64 -w0 reviewed.docx)\\""',
  'post /v1/processing/review/removetrackedchange':
    'curl $A -X POST "$B/v1/processing/review/removetrackedchange?id=1&accept=true" -d "\\"$(base64 -w0 reviewed.docx)\\""',
  'get /v1/jobs': "curl $A $B/v1/jobs   # the account's background jobs, newest first",
  'get /v1/jobs/callbacksecret': 'curl $A $B/v1/jobs/callbacksecret   # the key of X-Docsmith-Signature: t=...,v1=HMAC-SHA256("t.body")',
  'get /v1/jobs/{id}':
    'curl $A $B/v1/jobs/JOB_ID   # {"state": "running", "progress": {"stage": "converting", "done": 2, "total": 5}, ...}',
  'get /v1/jobs/{id}/result': 'curl $A $B/v1/jobs/JOB_ID/result   # when done: what the request would have answered',
  'delete /v1/jobs/{id}': 'curl $A -X DELETE $B/v1/jobs/JOB_ID   # 204: cancelled, or removed with its result',
  'get /v1/operator/accounts/{username}/signing':
    'curl -H "Authorization: Bearer $DOCSMITH_OPERATOR_TOKEN" $B/v1/operator/accounts/acme/signing',
  'put /v1/operator/accounts/{username}/signing':
    'curl -H "Authorization: Bearer $DOCSMITH_OPERATOR_TOKEN" -X PUT $B/v1/operator/accounts/acme/signing -H "Content-Type: application/json" -d \'{"granted":true}\'',
  'put /v1/operator/accounts/{username}/signing/certificate':
    'curl -H "Authorization: Bearer $DOCSMITH_OPERATOR_TOKEN" -X PUT $B/v1/operator/accounts/acme/signing/certificate -H "Content-Type: application/json" -d "{\\"p12\\":\\"$(base64 -w0 acme.p12)\\",\\"password\\":\\"$P12_PASSWORD\\"}"',
  'delete /v1/operator/accounts/{username}/signing/certificate':
    'curl -H "Authorization: Bearer $DOCSMITH_OPERATOR_TOKEN" -X DELETE $B/v1/operator/accounts/acme/signing/certificate',
  'get /healthz': 'curl $B/healthz',
  'get /readyz': 'curl $B/readyz',
  'get /version': 'curl $B/version   # {"version": "0.1.0", "storage": "sqlite"}',
};

export function exampleFor(method: string, path: string): string | undefined {
  return EXAMPLES[`${method.toLowerCase()} ${path.replace(/\/$/, '')}`];
}

const escape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A request body from its schema: what it is, its fields, and the schema's own example. */
function renderBody(body: BodySchema, mediaExample: unknown): string {
  const type = Array.isArray(body.type) ? body.type[0] : body.type;
  const fields = Object.entries(body.properties ?? {})
    .map(
      ([name, field]) =>
        `<tr><td><code>${escape(name)}</code></td><td>${body.required?.includes(name) ? 'yes' : 'no'}</td><td>${escape(field.description ?? '')}</td></tr>`,
    )
    .join('');
  const example = mediaExample ?? body.examples?.[0];
  return (
    `<p>Body: JSON ${escape(String(type ?? 'value'))}${body.description ? `, ${escape(body.description)}` : ''}</p>` +
    (fields ? `<table><tr><th>Field</th><th>Required</th><th>Meaning</th></tr>${fields}</table>` : '') +
    (example !== undefined ? `<p>Example body:</p><pre>${escape(JSON.stringify(example, null, 2))}</pre>` : '')
  );
}

export function renderReference(doc: OpenApiLike): string {
  const sections: string[] = [];
  for (const [path, methods] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(methods)) {
      const params = (op.parameters ?? [])
        .map(
          (p) =>
            `<tr><td><code>${escape(p.name)}</code></td><td>${p.in}</td><td>${p.required ? 'yes' : 'no'}</td><td>${escape(p.description ?? '')}</td></tr>`,
        )
        .join('');
      const media = op.requestBody?.content?.['application/json'];
      const body = media?.schema;
      const responses = Object.entries(op.responses ?? {})
        .map(([status, r]) => `<li><b>${status}</b> ${escape(r.description ?? '')}</li>`)
        .join('');
      const curl = op['x-codeSamples']?.[0]?.source ?? exampleFor(method, path) ?? `curl $A -X ${method.toUpperCase()} "$B${path}"`;
      sections.push(`<section id="${escape(method + path)}">
<h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${escape(path)}</code></h3>
<p>${escape(op.summary ?? '')}</p>${op.description ? `<p>${escape(op.description)}</p>` : ''}
${params ? `<table><tr><th>Parameter</th><th>In</th><th>Required</th><th>Meaning</th></tr>${params}</table>` : ''}
${body ? renderBody(body, media?.example) : ''}
<ul>${responses}</ul><pre>${escape(curl)}</pre></section>`);
    }
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escape(doc.info.title)} API reference</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
code,pre{font-family:ui-monospace,monospace}pre{background:#f4f4f4;padding:.5rem;overflow-x:auto}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.2rem .5rem;text-align:left}
.m{display:inline-block;min-width:4.5rem;font-size:.8em;padding:.1rem .3rem;border-radius:3px;color:#fff;background:#555}
.m.get{background:#2a7}.m.post{background:#27a}.m.put{background:#a72}.m.delete{background:#a33}section{border-top:1px solid #eee;padding-top:.5rem}</style>
</head><body><h1>${escape(doc.info.title)} <small>${escape(doc.info.version)}</small></h1>
<p>${escape(doc.info.description ?? '')}</p>
<p>Machine-readable description: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1); to call the API from the browser, <a href="/docs/try">/docs/try</a> (Swagger UI).
The examples use <code>B=http://localhost:8080</code> and <code>A='-H "Authorization: ReportingCloud-APIKey KEY"'</code> (or <code>A='-u user:password'</code>).</p>
<p>Authenticate every <code>/v1</code> call with <code>Authorization: ReportingCloud-APIKey &lt;key&gt;</code> or HTTP Basic.
Documents travel as Base64 strings in JSON. Errors answer <code>{"message": "…"}</code> and carry an <code>X-Request-Id</code> header.</p>
${sections.join('\n')}</body></html>`;
}
