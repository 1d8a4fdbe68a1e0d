import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import net from 'node:net';
import { ROOT } from '../helpers/server.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { client } from '../helpers/http.js';
import { docx, mergefield, p, run } from '../helpers/docx.js';
import { pdfFacts } from '../helpers/office.js';

// The container image, built and run with podman where it is installed (no registry is needed:
// scripts/container-base.mjs makes the Debian base from Debian's mirror with debootstrap).
const has = (command: string) => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
const skip =
  process.env.DOCSMITH_CONTAINER_TESTS === '0'
    ? 'DOCSMITH_CONTAINER_TESTS=0'
    : !has('podman') || !has('debootstrap')
      ? 'podman and debootstrap are not installed: apt-get install podman debootstrap to build and test the container image'
      : process.getuid?.() !== 0
        ? 'building the base image with debootstrap needs root'
        : false;

const IMAGE = 'localhost/docsmith:test';
// runc where installed (crun refuses hybrid cgroup hierarchies), and limits below the host's (a
// VM without CAP_SYS_RESOURCE cannot hand a container podman's defaults).
const RUNTIME = [...(has('runc') ? ['--runtime', 'runc'] : []), '--ulimit', 'nofile=16384:16384', '--ulimit', 'nproc=16384:16384'];

function sh(command: string, args: string[], timeout = 30 * 60_000) {
  const result = spawnSync(command, args, { cwd: ROOT, encoding: 'utf8', timeout, maxBuffer: 64 * 1024 * 1024 });
  return { code: result.status, out: result.stdout ?? '', err: result.stderr ?? '' };
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

describe('container image (podman)', { skip, timeout: 45 * 60_000 }, () => {
  let db: TestDatabase;
  const name = `docsmith-test-${process.pid}`;
  before(async () => {
    db = await createTestDatabase();
  });
  after(async () => {
    sh('podman', ['rm', '--force', name]);
    sh('podman', ['image', 'prune', '--force']); // the build stages of earlier runs
    await db?.drop();
  });

  it(
    'builds from the Dockerfile, runs as a non-root user on PostgreSQL, merges, reports healthy and stops cleanly',
    { timeout: 45 * 60_000 },
    async () => {
      const base = sh(process.execPath, ['scripts/container-base.mjs']);
      assert.equal(base.code, 0, base.err);
      // The docker format keeps HEALTHCHECK (OCI images have no such field).
      const build = sh('podman', [
        'build',
        ...RUNTIME,
        '--format',
        'docker',
        '--network',
        'host',
        '--build-arg',
        `BASE_IMAGE=${base.out.trim()}`,
        '-t',
        IMAGE,
        '.',
      ]);
      assert.equal(build.code, 0, build.err.slice(-4000));
      // Publish-ready labels, and a size kept in check (what the office needs, nothing of the build).
      const labels = JSON.parse(sh('podman', ['image', 'inspect', '--format', '{{json .Labels}}', IMAGE]).out) as Record<string, string>;
      const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
      assert.equal(labels['org.opencontainers.image.version'], version);
      assert.equal(labels['org.opencontainers.image.licenses'], 'MIT');
      assert.equal(labels['org.opencontainers.image.title'], 'docsmith');
      assert.equal(labels['org.opencontainers.image.base.name'], base.out.trim());
      const size = Number(sh('podman', ['image', 'inspect', '--format', '{{.Size}}', IMAGE]).out.trim());
      console.log(`container image: ${(size / 1e6).toFixed(0)} MB`);
      assert.ok(size > 0 && size < 1.2e9, `the image is ${(size / 1e6).toFixed(0)} MB`);

      const port = await freePort();
      const started = sh('podman', [
        'run',
        ...RUNTIME,
        '--detach',
        '--name',
        name,
        '--network',
        'host',
        '-e',
        `PORT=${port}`,
        '-e',
        'HOST=127.0.0.1',
        '-e',
        `DOCSMITH_DATABASE_URL=${db.url}`,
        '-e',
        'DOCSMITH_SECRET=container-test-secret',
        '-e',
        'DOCSMITH_BOOTSTRAP_USER=boss',
        '-e',
        'DOCSMITH_BOOTSTRAP_PASSWORD=a-long-container-password',
        '-e',
        'DOCSMITH_BOOTSTRAP_LICENSE=SN-C',
        '-e',
        'DOCSMITH_OFFICE_PROCESSES=1',
        IMAGE,
      ]);
      assert.equal(started.code, 0, started.err);

      const url = `http://127.0.0.1:${port}`;
      const deadline = Date.now() + 180_000;
      for (;;) {
        const ready = await fetch(`${url}/readyz`).then(
          async (r) => ({ status: r.status, text: await r.text() }),
          (e: Error) => ({ status: 0, text: e.message }),
        );
        if (ready.status === 200) break;
        const logs = sh('podman', ['logs', name]);
        assert.ok(
          Date.now() < deadline,
          `not ready within 3 minutes: ${ready.status} ${ready.text}\n${(logs.out + logs.err).slice(-3000)}`,
        );
        await new Promise((r) => setTimeout(r, 500));
      }
      assert.equal(sh('podman', ['exec', name, 'id', '-u']).out.trim(), '10001', 'the service runs as the docsmith user, not root');
      assert.match(
        sh('podman', ['exec', name, 'cat', '/proc/1/cmdline']).out,
        /^\/usr\/bin\/tini\0/,
        'an init is PID 1 and reaps children',
      );
      assert.equal(sh('podman', ['healthcheck', 'run', name]).code, 0, "the image's health check passes");

      const boss = client(url, { basic: ['boss', 'a-long-container-password'] });
      const template = docx(p(run('Hello '), mergefield('name'))).toString('base64');
      const merged = await boss.post('/v1/document/merge?returnFormat=PDF', { json: { template, mergeData: [{ name: 'Container' }] } });
      assert.equal(merged.status, 200, merged.text);
      assert.match(pdfFacts(Buffer.from((merged.json() as string[])[0]!, 'base64')).text, /Hello Container/);
      // A document with comments: the image has Writer's comment window files (scripts/setup.mjs).
      const commented = docx(
        p(
          '<w:commentRangeStart w:id="0"/>',
          run('Reviewed text'),
          '<w:commentRangeEnd w:id="0"/><w:r><w:commentReference w:id="0"/></w:r>',
        ),
        { comments: `<w:comment w:id="0" w:author="Ann">${p(run('Check this'))}</w:comment>` },
      );
      const converted = await boss.post('/v1/document/convert?returnFormat=PDF', { json: commented.toString('base64') });
      assert.equal(converted.status, 200, converted.text);
      assert.match(pdfFacts(Buffer.from(converted.json() as string, 'base64')).text, /Reviewed text/);
      assert.doesNotMatch(sh('podman', ['logs', name]).out, /office process crashed/);
      // The second line holds in the container too: the office runs under Landlock (no privileges),
      // and an SVG picture linking a file of the image shows nothing of it.
      const ready = (await fetch(`${url}/readyz`).then((r) => r.json())) as { office: { sandbox: string } };
      assert.ok(['landlock', 'bubblewrap'].includes(ready.office.sandbox), `the office runs in ${ready.office.sandbox}`);
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="240" height="180"><image xlink:href="file:///usr/share/icons/hicolor/48x48/apps/libreoffice-main.png" width="240" height="180"/></svg>`;
      const html = `<html><body><p>MARK</p><img src="data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}" width="240" height="180"></body></html>`;
      const picture = await boss.post('/v1/document/convert?returnFormat=PDF', { json: Buffer.from(html).toString('base64') });
      assert.equal(picture.status, 200, picture.text);
      assert.match(pdfFacts(Buffer.from(picture.json() as string, 'base64')).text, /MARK/);
      const dictionaries = (await boss.get('/v1/proofing/availabledictionaries')).json() as string[];
      assert.ok(dictionaries.includes('en_US.dic') && dictionaries.length > 40, `dictionaries: ${dictionaries.length}`);

      // Children that outlive their parent (the office's helpers) are reaped by the init: no zombies
      // pile up over the work above (node as PID 1 left 5 to 7 after 16 merges).
      const zombies = () =>
        sh('podman', ['exec', name, 'sh', '-c', "grep -ls '^State:[[:space:]]*Z' /proc/[0-9]*/status | wc -l"]).out.trim();
      const reaped = Date.now() + 60_000;
      while (zombies() !== '0' && Date.now() < reaped) await new Promise((r) => setTimeout(r, 500));
      assert.equal(zombies(), '0', 'no zombie processes in the container');

      const stopped = sh('podman', ['stop', '--time', '30', name], 60_000);
      assert.equal(stopped.code, 0, stopped.err);
      assert.equal(sh('podman', ['inspect', '--format', '{{.State.ExitCode}}', name]).out.trim(), '0', 'SIGTERM ends it with exit 0');
      assert.match(sh('podman', ['logs', name]).out, /"msg":"stopped"/);
    },
  );
});
