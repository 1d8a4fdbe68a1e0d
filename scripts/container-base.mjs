#!/usr/bin/env node
// A local base image for the Dockerfile where no image registry is reachable: Debian bookworm
// from Debian's own mirror (debootstrap) with this machine's Node.js and npm, and the extra CA
// certificates this machine trusts (an egress proxy's, say). Needs root, podman and debootstrap
// (apt-get install podman debootstrap). Prints the image's name.
//   node scripts/container-base.mjs            -> localhost/docsmith-base:bookworm-node20
//   podman build --build-arg BASE_IMAGE=localhost/docsmith-base:bookworm-node20 -t docsmith .
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const major = process.versions.node.split('.')[0];
const tag = process.argv[2] ?? `localhost/docsmith-base:bookworm-node${major}`;
const mirror = process.env.DEBIAN_MIRROR ?? 'http://deb.debian.org/debian';

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'], ...options });
  if (result.status !== 0) {
    console.error(`container-base: "${command} ${args.join(' ')}" failed (exit ${result.status ?? result.signal})`);
    process.exit(1);
  }
}

if (spawnSync('podman', ['image', 'exists', tag]).status === 0) {
  console.log(tag);
  process.exit(0);
}
const rootfs = mkdtempSync('/var/tmp/docsmith-rootfs-');
try {
  console.error(`container-base: Debian bookworm from ${mirror} into ${rootfs}`);
  run('debootstrap', ['--variant=minbase', '--include=ca-certificates', 'bookworm', rootfs, mirror], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  // This machine's Node.js: the binary, npm, and the headers native modules build against.
  const prefix = path.dirname(path.dirname(process.execPath));
  const npmRoot = spawnSync('npm', ['root', '-g'], { encoding: 'utf8' }).stdout.trim();
  mkdirSync(path.join(rootfs, 'usr/local/bin'), { recursive: true });
  cpSync(process.execPath, path.join(rootfs, 'usr/local/bin/node'));
  cpSync(path.join(npmRoot, 'npm'), path.join(rootfs, 'usr/local/lib/node_modules/npm'), { recursive: true });
  cpSync(path.join(prefix, 'include/node'), path.join(rootfs, 'usr/local/include/node'), { recursive: true });
  symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', path.join(rootfs, 'usr/local/bin/npm'));
  symlinkSync('../lib/node_modules/npm/bin/npx-cli.js', path.join(rootfs, 'usr/local/bin/npx'));
  // Certificates the machine added to its trust store; Node.js reads the system bundle with them.
  const extra = '/usr/local/share/ca-certificates';
  if (existsSync(extra) && readdirSync(extra).length > 0) {
    cpSync(extra, path.join(rootfs, extra), { recursive: true });
    run('chroot', [rootfs, 'update-ca-certificates'], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const env = [
    'npm_config_nodedir=/usr/local',
    'NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt',
    'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
  ];
  const changes = env.map((e) => `--change 'ENV ${e}'`).join(' ');
  const tar = spawnSync('sh', ['-c', `tar -C "${rootfs}" -c . | podman import ${changes} - ${tag}`], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (tar.status !== 0) process.exit(1);
  console.log(tag);
} finally {
  rmSync(rootfs, { recursive: true, force: true });
}
