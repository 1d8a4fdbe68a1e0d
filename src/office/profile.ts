import fs from 'node:fs';
import path from 'node:path';
import { processAlive } from '../util/process.js';
import {
  attr,
  childElements,
  element,
  parseXml,
  serializeDocument,
  text,
  textOf,
  type XmlDocument,
  type XmlElement,
  type XmlNode,
} from '../ooxml/xml.js';

/**
 * Settings written into each office profile before it starts: no macros, no link updates, no
 * recovery or backup files, no lock files (each one cost a write, a flush and reads of
 * /etc/passwd per document), nothing fetched for a document, no spelling, grammar or word
 * collection while a document is open (they ran between a job's load and its export: about 0.8
 * ms of a one-page conversion; proofing does not use the office).
 */
const SETTINGS: [path: string, name: string, type: string, value: string][] = [
  ['/org.openoffice.Office.Common/Security/Scripting', 'MacroSecurityLevel', 'int', '3'],
  ['/org.openoffice.Office.Common/Security/Scripting', 'DisableMacrosExecution', 'boolean', 'true'],
  ['/org.openoffice.Office.Common/Security/Scripting', 'BlockUntrustedRefererLinks', 'boolean', 'true'],
  ['/org.openoffice.Office.Common/Misc', 'FirstRun', 'boolean', 'false'],
  ['/org.openoffice.Office.Common/Misc', 'UseLocking', 'boolean', 'false'],
  ['/org.openoffice.Office.Common/Misc', 'UseDocumentOOoLockFile', 'boolean', 'false'],
  ['/org.openoffice.Office.Common/Misc', 'UseDocumentSystemFileLocking', 'boolean', 'false'],
  ['/org.openoffice.Office.Common/Save/Document', 'CreateBackup', 'boolean', 'false'],
  ['/org.openoffice.Office.Recovery/AutoSave', 'Enabled', 'boolean', 'false'],
  ['/org.openoffice.Office.Recovery/RecoveryInfo', 'Enabled', 'boolean', 'false'],
  ['/org.openoffice.Office.Writer/Content/Update', 'Link', 'int', '2'],
  ['/org.openoffice.Office.Calc/Content/Update', 'Link', 'int', '2'],
  ['/org.openoffice.Office.Common/Internet/Proxy', 'ooInetProxyType', 'int', '0'],
  ['/org.openoffice.Office.Common/Help', 'ShowTipOfTheDay', 'boolean', 'false'],
  ['/org.openoffice.Office.Linguistic/SpellChecking', 'IsSpellAuto', 'boolean', 'false'],
  ['/org.openoffice.Office.Linguistic/GrammarChecking', 'IsAutoCheck', 'boolean', 'false'],
  ['/org.openoffice.Office.Writer/AutoFunction/Completion', 'Enable', 'boolean', 'false'],
  ['/org.openoffice.Office.Writer/AutoFunction/Completion', 'CollectWords', 'boolean', 'false'],
];

const EMPTY =
  '<?xml version="1.0" encoding="UTF-8"?>\n' +
  '<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" ' +
  'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n</oor:items>';

/** The profile's settings file read, or a new one when there is none (or it cannot be read: the office would not either). */
function readSettings(file: string): XmlDocument {
  try {
    const doc = parseXml(fs.readFileSync(file, 'utf8'), 'the office profile');
    if (doc.root.name === 'oor:items') return doc;
  } catch {
    // a missing or damaged file is written anew
  }
  return parseXml(EMPTY, 'the office profile');
}

const setting = (where: string, name: string, type: string, value: string): XmlElement =>
  element(
    'item',
    [['oor:path', where]],
    [
      element(
        'prop',
        [
          ['oor:name', name],
          ['oor:op', 'fuse'],
          ['oor:type', `xs:${type}`],
        ],
        [element('value', [], [text(value)])],
      ),
    ],
  );

const versions = new Map<string, string | undefined>();

/**
 * The office's version as its installation states it (`ooSetupVersion` in
 * share/registry/main.xcd, e.g. "7.4"), read once per installation; undefined if it cannot be read.
 */
export function installedOfficeVersion(sofficePath: string): string | undefined {
  if (!versions.has(sofficePath)) {
    let version: string | undefined;
    try {
      const xcd = fs.readFileSync(path.join(path.dirname(fs.realpathSync(sofficePath)), '..', 'share', 'registry', 'main.xcd'), 'utf8');
      // The office's own 2 MB file, not a document: one known property, not a parse of it all.
      version = /<prop oor:name="ooSetupVersion">\s*<value>(\d+\.\d+)<\/value>/.exec(xcd)?.[1];
    } catch {
      // another layout: the office runs its start-up checks, as before
    }
    versions.set(sofficePath, version);
  }
  return versions.get(sofficePath);
}

/**
 * Our settings in the profile's registrymodifications.xcu. The office rewrites that file itself
 * and keeps what it read, so a profile from an earlier version gets the settings it lacks, and a
 * setting changed since (by hand, or by the office) gets our value back; the rest is left alone.
 *
 * `officeVersion` is recorded as the version this profile last ran: an office that finds none (or
 * an older one) renders its graphics self-tests at start, which the headless office never records
 * as done, so each start paid for them again: a start and warm-up took 4.4 s of CPU, 1.05 s without.
 */
export function prepareProfile(dir: string, officeVersion?: string): void {
  const user = path.join(dir, 'user');
  fs.mkdirSync(user, { recursive: true });
  const file = path.join(user, 'registrymodifications.xcu');
  const doc = readSettings(file);
  let changed = !fs.existsSync(file);
  const settings: typeof SETTINGS = officeVersion
    ? [...SETTINGS, ['/org.openoffice.Setup/Product', 'ooSetupLastVersion', 'string', officeVersion]]
    : SETTINGS;
  for (const [p, name, type, value] of settings) {
    const ours = (node: XmlNode): node is XmlElement =>
      node.kind === 'element' &&
      node.name === 'item' &&
      attr(node, 'oor:path') === p &&
      childElements(node, 'prop').some((prop) => attr(prop, 'oor:name') === name);
    const found = doc.root.children.filter(ours);
    if (found.length === 1 && found[0]!.children.some((prop) => textOf(prop, ['value']) === value)) continue;
    // Each item on its line: the line end after a dropped item goes with it.
    doc.root.children = doc.root.children.filter((node, i, all) => !ours(node) && !(node.kind === 'text' && i > 0 && ours(all[i - 1]!)));
    const last = doc.root.children[doc.root.children.length - 1];
    if (last?.kind !== 'text' || !last.text.endsWith('\n')) doc.root.children.push(text('\n'));
    doc.root.children.push(setting(p, name, type, value), text('\n'));
    changed = true;
  }
  if (changed) fs.writeFileSync(file, `${serializeDocument(doc)}\n`);
}

const OWNER_FILE = 'docsmith-owner';
const claimed = new Set<string>();

function ownerOf(dir: string): number | undefined {
  try {
    return Number(fs.readFileSync(path.join(dir, OWNER_FILE), 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * A profile folder for a pool slot, reused by every office that slot ever runs, so replacements
 * neither leak folders nor pay the slow first start again. A folder another live process (or a
 * still-serving office of this one) holds is skipped for the next variant: `profile-1`,
 * `profile-1-b`, ... The number of folders stays bounded by the slots that ever ran at once.
 */
export function claimProfile(workDir: string, slot: string): { name: string; dir: string; release(): void } {
  for (let variant = 0; ; variant++) {
    const name =
      variant === 0 ? slot : `${slot}-${String.fromCharCode(98 + ((variant - 1) % 25))}${variant > 25 ? Math.floor(variant / 25) : ''}`;
    const dir = path.join(workDir, `profile-${name}`);
    if (claimed.has(dir)) continue;
    const owner = ownerOf(dir);
    if (owner !== undefined && owner !== process.pid && processAlive(owner)) continue;
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, OWNER_FILE), String(process.pid));
    claimed.add(dir);
    return { name, dir, release: () => claimed.delete(dir) };
  }
}

/**
 * Offices left running by a docsmith process that died without cleaning up (kill -9) on this
 * data folder: their profile's owner is gone. Killed, so a restart can use the profiles again.
 */
export function reapOrphanOffices(workDir: string): number {
  const marker = `UserInstallation=file://${path.join(workDir, 'profile-')}`;
  let reaped = 0;
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let cmdline: string;
    try {
      cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    const at = cmdline.indexOf(marker);
    if (at < 0) continue;
    const profile = cmdline.slice(at + 'UserInstallation=file://'.length).split('\0')[0]!;
    const owner = ownerOf(profile);
    if (owner !== undefined && owner !== process.pid && processAlive(owner)) continue;
    if (owner === process.pid) continue;
    try {
      process.kill(Number(entry), 'SIGKILL');
      reaped++;
    } catch {
      // gone meanwhile
    }
  }
  return reaped;
}
