import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

/**
 * Where the office runs. `bubblewrap`: a bwrap sandbox (own mount, network, PID and IPC
 * namespaces) that sees the system's programs and fonts read-only and, writable, only its own
 * profile, temp and job folders: a document that links a local file finds nothing there, and
 * the office dies with its parent. `network`: cut off the network only (`unshare --net`).
 * `none`: neither is possible here.
 */
export type SandboxKind = 'bubblewrap' | 'network' | 'none';

/** `required` refuses to start without bubblewrap; `auto` uses the best there is; `off` none. */
export type SandboxMode = 'auto' | 'required' | 'off';

export interface Sandbox {
  kind: SandboxKind;
  /** The command prefix that runs `argv` with read-write access to `writable` folders only. */
  wrap(argv: string[], options: { writable: string[]; tmp?: string; readable?: string[]; env?: Record<string, string> }): string[];
}

/** System folders the office and its Python bridge read; nothing of the host's data is among them. */
const READ_ONLY_SYSTEM = ['/usr', '/etc/fonts', '/etc/ld.so.cache', '/etc/libreoffice', '/etc/alternatives',
  '/etc/localtime', '/etc/passwd', '/etc/group', '/etc/nsswitch.conf', '/opt/libreoffice'];
const TOP_LEVEL = ['/bin', '/lib', '/lib64', '/lib32', '/sbin'];

function bubblewrapPrefix(options: { writable: string[]; tmp?: string; readable?: string[]; env?: Record<string, string> }): string[] {
  const args = ['bwrap', '--die-with-parent', '--unshare-all', '--cap-drop', 'ALL'];
  for (const dir of TOP_LEVEL) {
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(dir);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink()) args.push('--symlink', fs.readlinkSync(dir), dir);
    else args.push('--ro-bind', dir, dir);
  }
  for (const dir of READ_ONLY_SYSTEM) args.push('--ro-bind-try', dir, dir);
  args.push('--proc', '/proc', '--dev', '/dev');
  if (options.tmp) args.push('--bind', options.tmp, '/tmp');
  else args.push('--tmpfs', '/tmp');
  for (const file of options.readable ?? []) args.push('--ro-bind', file, file);
  for (const dir of options.writable) args.push('--bind', dir, dir);
  for (const [name, value] of Object.entries(options.env ?? {})) args.push('--setenv', name, value);
  args.push('--chdir', '/', '--');
  return args;
}

function works(argv: string[]): boolean {
  return spawnSync(argv[0]!, [...argv.slice(1), 'true'], { stdio: 'ignore', timeout: 10_000 }).status === 0;
}

let probed: { kind: SandboxKind; networkPrefix: string[] } | undefined;

/** What this machine allows, probed once: bubblewrap, else the `unshare` prefix that cuts the network. */
function probe(): { kind: SandboxKind; networkPrefix: string[] } {
  if (probed) return probed;
  if (works(bubblewrapPrefix({ writable: [] }))) {
    probed = { kind: 'bubblewrap', networkPrefix: [] };
  } else {
    const networkPrefix = [['unshare', '--net', '--'], ['unshare', '--map-root-user', '--net', '--']].find(works) ?? [];
    probed = { kind: networkPrefix.length ? 'network' : 'none', networkPrefix };
  }
  return probed;
}

/** The strongest isolation this machine allows. */
export function availableSandbox(): SandboxKind {
  return probe().kind;
}

export class SandboxUnavailableError extends Error {}

export function openSandbox(mode: SandboxMode): Sandbox {
  const kind: SandboxKind = mode === 'off' ? 'none' : availableSandbox();
  if (mode === 'required' && kind !== 'bubblewrap') {
    throw new SandboxUnavailableError('DOCSMITH_OFFICE_SANDBOX=required, but bubblewrap cannot run here: install it (apt-get install bubblewrap) and allow user namespaces, or set DOCSMITH_OFFICE_SANDBOX=auto');
  }
  if (kind === 'bubblewrap') return { kind, wrap: (argv, options) => [...bubblewrapPrefix(options), ...argv] };
  if (kind === 'network') {
    const prefix = probe().networkPrefix;
    return { kind, wrap: (argv) => [...prefix, ...argv] };
  }
  return { kind, wrap: (argv) => argv };
}
