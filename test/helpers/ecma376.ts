import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { unzipSync } from 'fflate';
import { attr, parseXml, serialize, type XmlElement, type XmlNode } from '../../src/ooxml/xml.js';
import { ROOT } from './server.js';

/**
 * The ECMA-376 Transitional schemas are not the project's to copy: tests validate against them
 * where they are (DOCSMITH_ECMA376_SCHEMAS, else the folder beside a checkout that CI has) and
 * skip, saying why, where they are not.
 */
export const ECMA376_DIR = process.env.DOCSMITH_ECMA376_SCHEMAS ?? path.join(ROOT, '..', 'shared', 'schemas', 'ecma-376');
const ENTRY = path.join(ECMA376_DIR, 'wordprocessingml.xsd');
const hasXmllint = spawnSync('sh', ['-c', 'command -v xmllint']).status === 0;

export const ecma376Skip: string | false = !fs.existsSync(ENTRY)
  ? `the ECMA-376 schemas are not at ${ECMA376_DIR} (set DOCSMITH_ECMA376_SCHEMAS to the folder holding wordprocessingml.xsd)`
  : !hasXmllint
    ? 'xmllint is needed to validate against the ECMA-376 schemas: apt-get install libxml2-utils'
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

/** xmllint's complaints about each WordprocessingML part of a DOCX against ECMA-376 Transitional ("part: message"). */
export function ecma376Problems(docx: Uint8Array): string[] {
  const files = unzipSync(docx);
  const parts = Object.entries(files).filter(([name]) => PARTS.test(name));
  if (parts.length === 0) return [];
  // One xmllint for all parts: loading the schemas is most of its time.
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'docsmith-ecma376-'));
  try {
    const byFile = new Map<string, string>();
    for (const [name, bytes] of parts) {
      const file = path.join(work, name.replace(/\//g, '_'));
      fs.writeFileSync(file, serialize(asWordReads(parseXml(new TextDecoder().decode(bytes), name).root)));
      byFile.set(file, name);
    }
    const result = spawnSync('xmllint', ['--noout', '--nonet', '--schema', ENTRY, ...byFile.keys()], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    if (result.status === 0) return [];
    const problems: string[] = [];
    for (const line of result.stderr.split('\n')) {
      const match = /^(.+?):\d+: (.*validity error.*)$/.exec(line);
      if (match && byFile.has(match[1]!)) problems.push(`${byFile.get(match[1]!)}: ${match[2]}`);
    }
    // Status 3 and 4 are validity errors; anything else is xmllint failing, said as such.
    return problems.length || result.status === 3 ? problems : [`xmllint exited with ${result.status}: ${result.stderr.slice(0, 500)}`];
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
