import { Parser } from 'htmlparser2';
import { inertCss } from './css.js';
import { inertDataUri } from './pictures.js';

/** Elements dropped with everything inside them: they run code or embed other resources. */
const DROPPED_WITH_CONTENT = new Set([
  'script',
  'iframe',
  'object',
  'embed',
  'frame',
  'frameset',
  'applet',
  'svg',
  'math',
  'template',
  'noembed',
  'noframes',
  'portal',
  'audio',
  'video',
  'source',
  'track',
  'picture',
]);
/** Elements dropped, their content kept or absent. */
const DROPPED = new Set(['base', 'link', 'meta', 'param', 'xml', 'import']);
const VOID = new Set(['area', 'br', 'col', 'hr', 'img', 'input', 'wbr', 'keygen']);
/** Attributes that name a resource; kept only as a data: URI (or an in-page #anchor for links). */
const URL_ATTRIBUTES = new Set([
  'src',
  'href',
  'srcset',
  'background',
  'poster',
  'data',
  'action',
  'formaction',
  'lowsrc',
  'dynsrc',
  'longdesc',
  'usemap',
  'codebase',
  'classid',
  'archive',
  'profile',
  'manifest',
  'ping',
  'icon',
  'cite',
  'xmlns',
  'imagesrcset',
  'datasrc',
  'vrml',
]);

const escapeText = (value: string) => value.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));
const escapeAttr = (value: string) => value.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** CSS in HTML: data: pictures (made inert) stay, nothing else that loads. */
export function inertHtmlCss(css: string): string {
  return inertCss(css, (url) => (/^data:image\//i.test(url) ? inertDataUri(url) : undefined));
}

/** A URL attribute's value as kept: data: pictures made inert (judged by their bytes), in-page anchors; undefined: dropped. */
function keptUrl(name: string, value: string): string | undefined {
  const v = value.trim();
  if (/^data:image\//i.test(v)) return name === 'src' || name === 'background' ? inertDataUri(v) : undefined;
  return v.startsWith('#') && name === 'href' ? v : undefined;
}

/**
 * An HTML document made self-contained before the office reads it, by a real HTML parser (so
 * `<img/src=...>`, unquoted values and entity tricks are read as a browser reads them): every
 * element and attribute that could load something from the disk or the network is removed;
 * data: images (made inert: an SVG among them loses its references) and in-page anchors stay.
 */
export function inertHtml(html: string): string {
  let out = '';
  let dropDepth = 0;
  let inStyle = false;
  const parser = new Parser(
    {
      onprocessinginstruction(name, data) {
        if (dropDepth === 0 && name.toLowerCase() === '!doctype') out += `<${data}>`;
      },
      onopentag(name, attributes) {
        if (dropDepth > 0 || DROPPED_WITH_CONTENT.has(name)) {
          if (!VOID.has(name)) dropDepth++;
          return;
        }
        if (DROPPED.has(name)) {
          if (name === 'meta' && attributes.charset) out += `<meta charset="${escapeAttr(attributes.charset)}">`;
          return;
        }
        let tag = `<${name}`;
        for (const [attr, value] of Object.entries(attributes)) {
          const key = attr.toLowerCase();
          if (key.startsWith('on') || (key.includes(':') && key !== 'xml:lang')) continue;
          const kept = URL_ATTRIBUTES.has(key) ? keptUrl(key, value) : key === 'style' ? inertHtmlCss(value) : value;
          if (kept === undefined) continue;
          tag += ` ${attr}="${escapeAttr(kept)}"`;
        }
        out += `${tag}>`;
        if (name === 'style') inStyle = true;
      },
      ontext(text) {
        if (dropDepth > 0) return;
        out += inStyle ? escapeText(inertHtmlCss(text)) : escapeText(text);
      },
      onclosetag(name, implied) {
        if (dropDepth > 0) {
          if (!VOID.has(name)) dropDepth--;
          return;
        }
        if (DROPPED.has(name) || VOID.has(name)) return;
        if (name === 'style') inStyle = false;
        if (!implied || !VOID.has(name)) out += `</${name}>`;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: false, recognizeSelfClosing: false },
  );
  parser.write(html);
  parser.end();
  return out;
}
