/**
 * Makes an HTML document self-contained before the office reads it: every reference that could
 * reach the network or the local disk (src, href, srcset, CSS url() and @import) is removed;
 * data: URIs and in-page anchors stay.
 */
export function sanitizeHtml(html: string): string {
  return html
    .replace(/<script\b[\s\S]*?<\/script\s*>/gi, '')
    .replace(/<(iframe|object|embed|frame|frameset|base|meta\s+http-equiv)\b[^>]*>/gi, '')
    .replace(/\s(src|href|srcset|background|poster|data|action|formaction|xlink:href|lowsrc|dynsrc)\s*=\s*("([^"]*)"|'([^']*)'|[^\s>]+)/gi,
      (match, _name: string, _quoted: string, dq: string | undefined, sq: string | undefined) => {
        const value = (dq ?? sq ?? match.split('=').slice(1).join('=')).trim();
        return /^(data:|#)/i.test(value) ? match : '';
      })
    .replace(/@import[^;]*;/gi, '')
    .replace(/url\(\s*(['"]?)(?!data:|#)[^)]*\1\s*\)/gi, 'none');
}
