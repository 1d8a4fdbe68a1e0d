/** Output formats a document operation can return. */
export type ReturnFormat = 'pdf' | 'pdfa' | 'docx' | 'doc' | 'rtf' | 'html' | 'txt';

export const RETURN_FORMATS: readonly ReturnFormat[] = ['pdf', 'pdfa', 'docx', 'doc', 'rtf', 'html', 'txt'];
