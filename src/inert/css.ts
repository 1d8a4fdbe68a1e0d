/**
 * CSS without anything that loads: `@import`, `expression()`, behaviours, and every `url()`,
 * `image-set()` or `src()` except the URLs `keep` returns (it may rewrite them; undefined drops
 * one, which becomes `none`). Comments and escapes are resolved first, as a browser does, so
 * `u\72l(...)` is seen.
 */
export function inertCss(css: string, keep: (url: string) => string | undefined): string {
  const plain = css
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/\\([0-9a-fA-F]{1,6})\s?/g, (_m, hex: string) => String.fromCodePoint(Math.min(parseInt(hex, 16), 0x10ffff) || 0xfffd))
    .replace(/\\(.)/g, '$1');
  return plain
    .replace(/@import[^;]*;?/gi, '')
    .replace(/(?:url|image|image-set|-webkit-image-set|expression|src)\s*\((?:[^()]|\([^()]*\))*\)/gi, (match) => {
      const inner = /^url\s*\(\s*(['"]?)\s*([\s\S]*?)\s*\1\s*\)$/i.exec(match)?.[2];
      const kept = inner === undefined ? undefined : keep(inner);
      return kept === undefined ? 'none' : `url("${kept.replace(/["\\]/g, '\\$&')}")`;
    })
    .replace(/(?:behavior|-moz-binding)\s*:[^;}]*;?/gi, '');
}
