import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { installedOfficeVersion, prepareProfile } from '../../src/office/profile.js';

const settingsFile = (dir: string) => path.join(dir, 'user', 'registrymodifications.xcu');
const valueOf = (xml: string, name: string) =>
  [...xml.matchAll(new RegExp(`<prop oor:name="${name}"[^>]*><value>([^<]*)</value>`, 'g'))].map((m) => m[1]);

describe('office profile settings', () => {
  it('a new profile gets every setting: no macros, no lock files, no recovery, no proofing while open', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'profile-'));
    prepareProfile(dir);
    const xml = fs.readFileSync(settingsFile(dir), 'utf8');
    assert.deepEqual(valueOf(xml, 'DisableMacrosExecution'), ['true']);
    assert.deepEqual(valueOf(xml, 'UseLocking'), ['false']);
    assert.deepEqual(valueOf(xml, 'UseDocumentOOoLockFile'), ['false']);
    assert.deepEqual(valueOf(xml, 'IsSpellAuto'), ['false']);
    assert.deepEqual(valueOf(xml, 'IsAutoCheck'), ['false']);
    assert.deepEqual(valueOf(xml, 'CollectWords'), ['false']);
    assert.match(xml, /^<\?xml[^>]*>\n<oor:items [^>]*>\n(<item [^\n]*<\/item>\n)+<\/oor:items>\n$/);
  });

  it('a profile the office rewrote keeps its own items, gets the settings it lacks and our values back', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'profile-'));
    fs.mkdirSync(path.join(dir, 'user'));
    // As LibreOffice writes the file: its own items, one of ours changed, UseLocking (added later) absent.
    const office =
      '<?xml version="1.0" encoding="UTF-8"?>\n<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n' +
      '<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="UseDocumentOOoLockFile" oor:op="fuse"><value>false</value></prop></item>\n' +
      '<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="DisableMacrosExecution" oor:op="fuse"><value>false</value></prop></item>\n' +
      '<item oor:path="/org.openoffice.Setup/Office"><prop oor:name="ooSetupInstCompleted" oor:op="fuse"><value>true</value></prop></item>\n' +
      '</oor:items>\n';
    fs.writeFileSync(settingsFile(dir), office);
    prepareProfile(dir);
    const xml = fs.readFileSync(settingsFile(dir), 'utf8');
    assert.deepEqual(valueOf(xml, 'DisableMacrosExecution'), ['true']);
    assert.deepEqual(valueOf(xml, 'UseLocking'), ['false']);
    assert.deepEqual(valueOf(xml, 'UseDocumentOOoLockFile'), ['false']);
    assert.deepEqual(valueOf(xml, 'ooSetupInstCompleted'), ['true']);
    assert.ok(xml.startsWith(office.split('\n')[0]!), xml);
    // One item per line, as the office writes them: a replaced item leaves no empty line.
    assert.match(xml, /^<\?xml[^>]*>\n<oor:items [^>]*>\n(<item [^\n]*<\/item>\n)+<\/oor:items>\n$/);

    // Nothing to change: the file is not written again.
    const written = fs.statSync(settingsFile(dir)).mtimeMs;
    fs.utimesSync(settingsFile(dir), 0, 0);
    prepareProfile(dir);
    assert.equal(fs.statSync(settingsFile(dir)).mtimeMs, 0);
    assert.ok(written > 0);
  });

  it("records the office's version as the one the profile last ran (else each start runs the office's self-tests)", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'profile-'));
    prepareProfile(dir, '7.4');
    assert.deepEqual(valueOf(fs.readFileSync(settingsFile(dir), 'utf8'), 'ooSetupLastVersion'), ['7.4']);
    // An office of another version later: its version replaces the old one.
    prepareProfile(dir, '24.8');
    assert.deepEqual(valueOf(fs.readFileSync(settingsFile(dir), 'utf8'), 'ooSetupLastVersion'), ['24.8']);
    // A version that cannot be read leaves the recorded one alone.
    prepareProfile(dir);
    assert.deepEqual(valueOf(fs.readFileSync(settingsFile(dir), 'utf8'), 'ooSetupLastVersion'), ['24.8']);
  });

  it('reads the installed version from the office installation, and nothing from a path that has none', () => {
    const install = fs.mkdtempSync(path.join(os.tmpdir(), 'office-'));
    fs.mkdirSync(path.join(install, 'program'));
    fs.mkdirSync(path.join(install, 'share', 'registry'), { recursive: true });
    fs.writeFileSync(path.join(install, 'program', 'soffice.bin'), '');
    fs.writeFileSync(
      path.join(install, 'share', 'registry', 'main.xcd'),
      '<oor:component-data oor:name="Setup" oor:package="org.openoffice"><node oor:name="Product">' +
        '<prop oor:name="ooSetupVersion">\n        <value>7.4</value>\n      </prop>' +
        '<prop oor:name="ooSetupVersionAboutBox"><value>7.4.7.2</value></prop></node></oor:component-data>',
    );
    assert.equal(installedOfficeVersion(path.join(install, 'program', 'soffice.bin')), '7.4');
    assert.equal(installedOfficeVersion(path.join(install, 'program', 'missing.bin')), undefined);
  });

  it('a settings file that cannot be read is written anew with our settings (the office would not read it either)', () => {
    for (const damaged of ['<oor:items><item oor:path=', '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><oor:items/>', '<other/>']) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'profile-'));
      fs.mkdirSync(path.join(dir, 'user'));
      fs.writeFileSync(settingsFile(dir), damaged);
      prepareProfile(dir);
      const xml = fs.readFileSync(settingsFile(dir), 'utf8');
      assert.deepEqual(valueOf(xml, 'DisableMacrosExecution'), ['true'], damaged);
      assert.match(xml, /^<\?xml[^>]*>\n<oor:items [^>]*>\n(<item [^\n]*<\/item>\n)+<\/oor:items>\n$/);
    }
  });
});
