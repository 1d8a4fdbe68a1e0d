import type { ReturnFormat } from '@docsmith/client';

export const RETURN_FORMATS: ReturnFormat[] = ['PDF', 'PDFA', 'DOCX', 'DOC', 'RTF', 'HTML', 'TXT', 'TX'];
export const TEMPLATE_EXTENSIONS = ['.docx', '.doc', '.rtf', '.tx'];

const TYPES: Record<ReturnFormat, string> = {
  PDF: 'application/pdf',
  PDFA: 'application/pdf',
  DOCX: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  DOC: 'application/msword',
  RTF: 'application/rtf',
  HTML: 'text/html',
  TXT: 'text/plain',
  TX: 'application/octet-stream',
};

export function extensionOf(format: ReturnFormat): string {
  return format === 'PDFA' ? 'pdf' : format.toLowerCase();
}

export function baseName(fileName: string): string {
  return fileName.replace(/\.[^./]+$/, '') || 'document';
}

export function isTemplateFile(name: string): boolean {
  return TEMPLATE_EXTENSIONS.some((ext) => name.toLowerCase().endsWith(ext));
}

export async function readFile(file: File): Promise<Uint8Array> {
  return new Uint8Array(await file.arrayBuffer());
}

/** Hands bytes to the browser as a download. */
export function saveBytes(bytes: Uint8Array, fileName: string, format?: ReturnFormat): void {
  const blob = new Blob([bytes.slice()], { type: format ? TYPES[format] : 'application/octet-stream' });
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export function pngDataUrl(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return `data:image/png;base64,${btoa(binary)}`;
}

export function formatBytes(size: number): string {
  if (size < 1024) return `${size} B`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KB`;
  return `${(size / 1024 / 1024).toFixed(1)} MB`;
}

export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}
