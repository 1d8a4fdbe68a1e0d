import { attr, setAttr, type XmlElement } from '../ooxml/xml.js';

/** Renames the ids in reference attributes of one element kind: `<w:pStyle w:val="X"/>`. */
export const STYLE_REFERENCES = ['w:pStyle', 'w:rStyle', 'w:tblStyle'];

export function remapValues(xml: string, elements: string, attribute: string, map: Map<string, string>): string {
  if (map.size === 0) return xml;
  const pattern = new RegExp(`(<(?:${elements})\\b[^>]*?\\b${attribute}=")([^"]*)(")`, 'g');
  return xml.replace(pattern, (whole, a: string, value: string, b: string) => (map.has(value) ? `${a}${map.get(value)}${b}` : whole));
}

const ROOT_TAG = /<w:document\b[^>]*>/;
const XMLNS = /\s(xmlns(?::[\w.-]+)?)="([^"]*)"/g;

/** The main document's root tag, with the namespaces (and ignorable prefixes) an appended root adds. */
export function withNamespacesOf(before: string, sourceBefore: string): string {
  const target = ROOT_TAG.exec(before)?.[0];
  const from = ROOT_TAG.exec(sourceBefore)?.[0];
  if (!target || !from) return before;
  const declared = new Set([...target.matchAll(XMLNS)].map((m) => m[1]));
  const added = [...from.matchAll(XMLNS)]
    .filter((m) => !declared.has(m[1]))
    .map((m) => ` ${m[1]}="${m[2]}"`)
    .join('');
  let tag = added ? target.replace(/\s*(\/?)>$/, `${added}$1>`) : target;
  const ignorable = (t: string) => /\smc:Ignorable="([^"]*)"/.exec(t)?.[1]?.split(/\s+/).filter(Boolean) ?? [];
  const wanted = ignorable(from).filter((prefix) => !ignorable(tag).includes(prefix));
  if (wanted.length > 0 && /\sxmlns:mc=/.test(tag)) {
    tag = /\smc:Ignorable="/.test(tag)
      ? tag.replace(
          /(\smc:Ignorable=")([^"]*)"/,
          (_all, start: string, list: string) => `${start}${[list, ...wanted].filter(Boolean).join(' ')}"`,
        )
      : tag.replace(/\s*>$/, ` mc:Ignorable="${wanted.join(' ')}">`);
  }
  return before.replace(target, tag);
}

/** Moved elements keep their prefixes: the receiving root declares what the giving root declared. */
export function adoptNamespaces(target: XmlElement, from: XmlElement): void {
  for (const [name, value] of from.attrs) {
    if ((name.startsWith('xmlns:') || name === 'xmlns') && attr(target, name) === undefined) setAttr(target, name, value);
  }
}
