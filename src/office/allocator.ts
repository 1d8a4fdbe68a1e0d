import fs from 'node:fs';
import path from 'node:path';

/**
 * The memory allocator the office runs with (`DOCSMITH_OFFICE_ALLOCATOR`): `auto` (jemalloc where
 * it is installed, else the system's), `system`, or the absolute path of a malloc library to preload.
 *
 * Why: a small document's conversion is mostly the office making and freeing many small objects.
 * With jemalloc (Debian's libjemalloc2) an 8-row invoice's PDF took 1.1-6.1 ms less of the office's
 * 16-22 ms in four paired runs, and its memory after 2,000 documents stayed level.
 */
export type AllocatorSetting = 'auto' | 'system' | `/${string}`;

const MULTIARCH = ({ x64: 'x86_64', arm64: 'aarch64' } as Partial<Record<string, string>>)[process.arch];

/** Where distributions install jemalloc (Debian and Ubuntu by architecture, then Fedora and Alpine). */
const JEMALLOC = [
  ...(MULTIARCH ? [`/usr/lib/${MULTIARCH}-linux-gnu/libjemalloc.so.2`] : []),
  '/usr/lib64/libjemalloc.so.2',
  '/usr/lib/libjemalloc.so.2',
];

export function allocatorSetting(raw: string | undefined): AllocatorSetting | undefined {
  const value = (raw || 'auto').trim();
  if (value === 'auto' || value === 'system') return value;
  if (path.isAbsolute(value) && !value.includes('\0')) return value as `/${string}`;
  return undefined;
}

/** The library to preload into the office, or undefined for the system's allocator (a named path was checked with the settings). */
export function officeAllocator(setting: AllocatorSetting, exists: (file: string) => boolean = fs.existsSync): string | undefined {
  if (setting === 'system') return undefined;
  if (setting === 'auto') return JEMALLOC.find((file) => exists(file));
  return setting;
}

/** What a sandboxed office needs to run with `library`: its environment, and the library among what it may read unless the system's folders already give it. */
export interface OfficePreload {
  env: Record<string, string>;
  readable: string[];
}

export function officePreload(library: string | undefined): OfficePreload {
  if (!library) return { env: {}, readable: [] };
  return { env: { LD_PRELOAD: library }, readable: library.startsWith('/usr/') ? [] : [library] };
}
