import fs from 'node:fs';
import path from 'node:path';

/**
 * Settings written into each office profile before its first start: no macros, no link
 * updates, no recovery or backup files, nothing fetched for a document.
 */
const SETTINGS: [path: string, name: string, type: string, value: string][] = [
  ['/org.openoffice.Office.Common/Security/Scripting', 'MacroSecurityLevel', 'int', '3'],
  ['/org.openoffice.Office.Common/Security/Scripting', 'DisableMacrosExecution', 'boolean', 'true'],
  ['/org.openoffice.Office.Common/Security/Scripting', 'BlockUntrustedRefererLinks', 'boolean', 'true'],
  ['/org.openoffice.Office.Common/Misc', 'FirstRun', 'boolean', 'false'],
  ['/org.openoffice.Office.Common/Misc', 'UseDocumentOOoLockFile', 'boolean', 'false'],
  ['/org.openoffice.Office.Common/Misc', 'UseDocumentSystemFileLocking', 'boolean', 'false'],
  ['/org.openoffice.Office.Common/Save/Document', 'CreateBackup', 'boolean', 'false'],
  ['/org.openoffice.Office.Recovery/AutoSave', 'Enabled', 'boolean', 'false'],
  ['/org.openoffice.Office.Recovery/RecoveryInfo', 'Enabled', 'boolean', 'false'],
  ['/org.openoffice.Office.Writer/Content/Update', 'Link', 'int', '2'],
  ['/org.openoffice.Office.Calc/Content/Update', 'Link', 'int', '2'],
  ['/org.openoffice.Office.Common/Internet/Proxy', 'ooInetProxyType', 'int', '0'],
  ['/org.openoffice.Office.Common/Help', 'ShowTipOfTheDay', 'boolean', 'false'],
];

export function prepareProfile(dir: string): void {
  const user = path.join(dir, 'user');
  fs.mkdirSync(user, { recursive: true });
  const items = SETTINGS.map(([p, name, type, value]) =>
    `<item oor:path="${p}"><prop oor:name="${name}" oor:op="fuse" oor:type="xs:${type}"><value>${value}</value></prop></item>`);
  const xml = '<?xml version="1.0" encoding="UTF-8"?>\n'
    + '<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" '
    + 'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n' + items.join('\n') + '\n</oor:items>\n';
  const file = path.join(user, 'registrymodifications.xcu');
  // Only on a new profile: the office rewrites this file itself and keeps our values in it.
  if (!fs.existsSync(file)) fs.writeFileSync(file, xml);
}
