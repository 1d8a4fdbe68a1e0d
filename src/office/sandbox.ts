import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Where the office runs. `bubblewrap`: a bwrap sandbox (own mount, network, PID and IPC
 * namespaces) that sees the system's programs and fonts read-only and, writable, only its own
 * profile, temp and job folders: a document that links a local file finds nothing there, and
 * the office dies with its parent. `landlock`: the same file access enforced by the kernel's
 * Landlock (no namespaces or privileges needed, so it works in a container as an unprivileged
 * user), no TCP connections, and cut off the network too where `unshare` may. `network`: cut
 * off the network only (`unshare --net`). `none`: nothing of this is possible here.
 */
export type SandboxKind = 'bubblewrap' | 'landlock' | 'network' | 'none';

/**
 * `auto` uses the best there is; `required` refuses to start without one that confines files
 * (bubblewrap or Landlock); `bubblewrap` and `landlock` ask for that one; `off` none.
 */
export type SandboxMode = 'auto' | 'required' | 'bubblewrap' | 'landlock' | 'off';
export const SANDBOX_MODES: readonly SandboxMode[] = ['auto', 'required', 'bubblewrap', 'landlock', 'off'];

export interface WrapOptions {
  writable: string[];
  tmp?: string;
  readable?: string[];
  env?: Record<string, string>;
}

export interface Sandbox {
  kind: SandboxKind;
  /** True when the office can read nothing but the system's programs and fonts and its own folders. */
  confinesFiles: boolean;
  /** The command prefix that runs `argv` with read-write access to `writable` folders only. */
  wrap(argv: string[], options: WrapOptions): string[];
}

export const LANDLOCK_PATH = fileURLToPath(new URL('./landlock.py', import.meta.url));

/**
 * The environment the office and its bridge get: the locale and path, never the service's own
 * settings (the master secret and the database address live in DOCSMITH_* variables).
 */
export function officeEnvironment(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && /^(PATH|LANG|LANGUAGE|TZ|LC_[A-Z]+)$/.test(name)) env[name] = value;
  }
  return { ...env, ...extra };
}

/** System folders the office and its Python bridge read; nothing of the host's data is among them. */
const READ_ONLY_SYSTEM = [
  '/usr',
  '/etc/fonts',
  '/etc/ld.so.cache',
  '/etc/libreoffice',
  '/etc/alternatives',
  '/etc/localtime',
  '/etc/passwd',
  '/etc/group',
  '/etc/nsswitch.conf',
  '/opt/libreoffice',
];
/** Read-only under Landlock, where paths are not remapped: the font cache, the office's shared extension folder (a symlink there). */
const READ_ONLY_CACHES = ['/var/cache/fontconfig', '/var/spool/libreoffice', '/var/lib/libreoffice', '/etc/locale.alias'];
const TOP_LEVEL = ['/bin', '/lib', '/lib64', '/lib32', '/sbin'];

function bubblewrapPrefix(options: WrapOptions): string[] {
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

/** Landlock through its launcher: the same folders as bubblewrap, the pipe folder for sockets only. */
function landlockPrefix(python: string, options: WrapOptions): string[] {
  const args = [python, LANDLOCK_PATH];
  for (const path of [...TOP_LEVEL, ...READ_ONLY_SYSTEM, ...READ_ONLY_CACHES, LANDLOCK_PATH, ...(options.readable ?? [])])
    args.push('--ro', path);
  for (const path of [...(options.tmp ? [options.tmp] : []), ...options.writable]) args.push('--rw', path);
  // The office's pipe is a socket in /tmp (outside bubblewrap): it may make and remove sockets there, nothing else.
  args.push('--sockets', '/tmp', '--');
  return args;
}

function works(argv: string[]): boolean {
  return spawnSync(argv[0]!, [...argv.slice(1), 'true'], { stdio: 'ignore', timeout: 10_000 }).status === 0;
}

interface Probed {
  bubblewrap: boolean;
  landlock: boolean;
  networkPrefix: string[];
}

const probed = new Map<string, Probed>();

/** What this machine allows, probed once per Python: bubblewrap, Landlock, the `unshare` prefix that cuts the network. */
function probe(python: string): Probed {
  let found = probed.get(python);
  if (found) return found;
  found = {
    bubblewrap: works(bubblewrapPrefix({ writable: [] })),
    landlock: works(landlockPrefix(python, { writable: [] })),
    networkPrefix:
      [
        ['unshare', '--net', '--'],
        ['unshare', '--map-root-user', '--net', '--'],
      ].find(works) ?? [],
  };
  probed.set(python, found);
  return found;
}

const DEFAULT_PYTHON = '/usr/bin/python3';

/** The strongest isolation a probe found. */
function strongest(found: Probed): SandboxKind {
  return found.bubblewrap ? 'bubblewrap' : found.landlock ? 'landlock' : found.networkPrefix.length ? 'network' : 'none';
}

/** The strongest isolation this machine allows. */
export function availableSandbox(python = DEFAULT_PYTHON): SandboxKind {
  return strongest(probe(python));
}

/** Every file-confining sandbox this machine can run (for tests that try each). */
export function confiningSandboxes(python = DEFAULT_PYTHON): SandboxKind[] {
  const found = probe(python);
  return (['bubblewrap', 'landlock'] as const).filter((kind) => found[kind]);
}

export class SandboxUnavailableError extends Error {}

const UNAVAILABLE: Record<'bubblewrap' | 'landlock' | 'required', string> = {
  bubblewrap:
    'DOCSMITH_OFFICE_SANDBOX=bubblewrap, but bubblewrap cannot run here: install it (apt-get install bubblewrap) and allow user namespaces, or set DOCSMITH_OFFICE_SANDBOX=auto',
  landlock:
    'DOCSMITH_OFFICE_SANDBOX=landlock, but this kernel does not offer Landlock (Linux 5.13 or newer with Landlock enabled), or the container runtime blocks its system calls; set DOCSMITH_OFFICE_SANDBOX=auto',
  required:
    'DOCSMITH_OFFICE_SANDBOX=required, but neither bubblewrap nor Landlock can run here: install bubblewrap (apt-get install bubblewrap) and allow user namespaces, or run on Linux 5.13+ with Landlock enabled; or set DOCSMITH_OFFICE_SANDBOX=auto',
};

/** The sandbox for `mode`; `python` runs the Landlock launcher (the office's own Python has `uno`). */
export function openSandbox(mode: SandboxMode, python = DEFAULT_PYTHON): Sandbox {
  if (mode === 'off') return { kind: 'none', confinesFiles: false, wrap: (argv) => argv };
  const found = probe(python);
  const kind = mode === 'bubblewrap' || mode === 'landlock' ? mode : strongest(found);
  if ((kind === 'bubblewrap' || kind === 'landlock') && !found[kind]) throw new SandboxUnavailableError(UNAVAILABLE[kind]);
  if (mode === 'required' && kind !== 'bubblewrap' && kind !== 'landlock') throw new SandboxUnavailableError(UNAVAILABLE.required);
  const network = found.networkPrefix;
  switch (kind) {
    case 'bubblewrap':
      return { kind, confinesFiles: true, wrap: (argv, options) => [...bubblewrapPrefix(options), ...argv] };
    case 'landlock':
      return { kind, confinesFiles: true, wrap: (argv, options) => [...network, ...landlockPrefix(python, options), ...argv] };
    case 'network':
      return { kind, confinesFiles: false, wrap: (argv) => [...network, ...argv] };
    case 'none':
      return { kind, confinesFiles: false, wrap: (argv) => argv };
  }
}
