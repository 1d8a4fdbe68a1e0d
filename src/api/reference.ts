/** Renders the OpenAPI description as one self-contained HTML page (no scripts, no CDN). */

interface Parameter { name: string; in: string; required?: boolean; description?: string; schema?: { type?: string | string[] } }
interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: { type?: string; description?: string } }> };
  responses?: Record<string, { description?: string }>;
}
export interface OpenApiLike {
  info: { title: string; version: string; description?: string };
  paths?: Record<string, Record<string, Operation>>;
}

const escape = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function renderReference(doc: OpenApiLike): string {
  const sections: string[] = [];
  for (const [path, methods] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(methods)) {
      const params = (op.parameters ?? [])
        .map((p) => `<tr><td><code>${escape(p.name)}</code></td><td>${p.in}</td><td>${p.required ? 'yes' : 'no'}</td><td>${escape(p.description ?? '')}</td></tr>`)
        .join('');
      const body = op.requestBody?.content?.['application/json']?.schema;
      const responses = Object.entries(op.responses ?? {})
        .map(([status, r]) => `<li><b>${status}</b> ${escape(r.description ?? '')}</li>`).join('');
      const curl = `curl -X ${method.toUpperCase()} -H "Authorization: ReportingCloud-APIKey $KEY" "$BASE${path}${(op.parameters ?? []).filter((p) => p.in === 'query').length ? '?…' : ''}"${body ? " -d '\"…\"'" : ''}`;
      sections.push(`<section id="${escape(method + path)}">
<h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${escape(path)}</code></h3>
<p>${escape(op.summary ?? '')}</p>${op.description ? `<p>${escape(op.description)}</p>` : ''}
${params ? `<table><tr><th>Parameter</th><th>In</th><th>Required</th><th>Meaning</th></tr>${params}</table>` : ''}
${body ? `<p>Body: JSON ${escape(String(body.type ?? 'value'))}${body.description ? ` — ${escape(body.description)}` : ''}</p>` : ''}
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
<p>Machine-readable description: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3).</p>
<p>Authenticate every <code>/v1</code> call with <code>Authorization: ReportingCloud-APIKey &lt;key&gt;</code> or HTTP Basic.
Documents travel as Base64 strings in JSON. Errors answer <code>{"message": "…"}</code> and carry an <code>X-Request-Id</code> header.</p>
${sections.join('\n')}</body></html>`;
}
