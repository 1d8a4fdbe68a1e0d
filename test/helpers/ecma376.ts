import fs from 'node:fs';
import path from 'node:path';
import { unzipSync } from 'fflate';
import { XmlDocument, XmlValidateError, XsdValidator } from 'libxml2-wasm';
import { xmlRegisterFsInputProviders } from 'libxml2-wasm/lib/nodejs.mjs';
import { attr, parseXml, serialize, type XmlElement, type XmlNode } from '../../src/ooxml/xml.js';
import { ROOT } from './server.js';

/**
 * The ECMA-376 Transitional schemas are not the project's to copy: tests validate against them
 * where they are (DOCSMITH_ECMA376_SCHEMAS, else the folder beside a checkout that CI has) and
 * skip, saying why, where they are not.
 */
export const ECMA376_DIR = process.env.DOCSMITH_ECMA376_SCHEMAS ?? path.join(ROOT, '..', 'shared', 'schemas', 'ecma-376');
const ENTRY = path.join(ECMA376_DIR, 'wordprocessingml.xsd');
export const ecma376Skip: string | false = !fs.existsSync(ENTRY)
  ? `the ECMA-376 schemas are not at ${ECMA376_DIR} (set DOCSMITH_ECMA376_SCHEMAS to the folder holding wordprocessingml.xsd)`
  : false;

/** The WordprocessingML parts the schema entry point covers. */
const PARTS = /^word\/(document|header\d*|footer\d*|footnotes|endnotes|comments|styles|numbering|settings)\.xml$/;
const MC = 'http://schemas.openxmlformats.org/markup-compatibility/2006';

/** A part as Word reads it: what mc:Ignorable names left out, mc:AlternateContent as its Fallback. */
function asWordReads(root: XmlElement): XmlElement {
  const prefixes = new Map<string, string>();
  for (const [name, value] of root.attrs) if (name.startsWith('xmlns:')) prefixes.set(name.slice(6), value);
  const mc = [...prefixes].find(([, uri]) => uri === MC)?.[0];
  const ignorable = new Set((attr(root, `${mc}:Ignorable`) ?? '').split(/\s+/).filter(Boolean));
  const prefixOf = (name: string) => (name.includes(':') ? name.slice(0, name.indexOf(':')) : '');
  const keep = (node: XmlNode): XmlNode[] => {
    if (node.kind !== 'element') return [node];
    if (ignorable.has(prefixOf(node.name))) return [];
    if (mc && node.name === `${mc}:AlternateContent`) {
      const fallback = node.children.find((c): c is XmlElement => c.kind === 'element' && c.name === `${mc}:Fallback`);
      return fallback ? fallback.children.flatMap(keep) : [];
    }
    const attrs = node.attrs.filter(([name]) => !ignorable.has(prefixOf(name)) && !(mc && prefixOf(name) === mc));
    return [{ ...node, attrs, children: node.children.flatMap(keep) }];
  };
  return keep(root)[0] as XmlElement;
}

let validator: XsdValidator | undefined;

/** The schemas' complaints about each WordprocessingML part of a DOCX against ECMA-376 Transitional ("part: message"). */
export function ecma376Problems(docx: Uint8Array): string[] {
  // libxml2 in this process (WebAssembly): the schemas load once, a part validates in about a millisecond.
  if (!validator) {
    xmlRegisterFsInputProviders();
    const schema = XmlDocument.fromBuffer(fs.readFileSync(ENTRY), { url: ENTRY });
    validator = XsdValidator.fromDoc(schema);
  }
  const problems: string[] = [];
  for (const [name, bytes] of Object.entries(unzipSync(docx))) {
    if (!PARTS.test(name)) continue;
    const doc = XmlDocument.fromString(serialize(asWordReads(parseXml(new TextDecoder().decode(bytes), name).root)));
    try {
      validator.validate(doc);
    } catch (error) {
      if (!(error instanceof XmlValidateError)) throw error;
      problems.push(...error.details.map((detail) => `${name}: ${detail.message.trim()}`));
    } finally {
      doc.dispose();
    }
  }
  return problems;
}
