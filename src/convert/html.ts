/**
 * LibreOffice's HTML export wraps text at about 70 characters, putting a line break between two
 * words ("Awesome\nFacts"). Browsers show it as a space, but clients that search the HTML for a
 * phrase miss it: inside text (not in pre, textarea, script or style) the breaks become spaces.
 */
const TOKENS = /<!--[\s\S]*?-->|<[^>]*>|[^<]+/g;
const VERBATIM = /^<(\/?)(pre|textarea|script|style|xmp|listing|plaintext)\b/i;

export function unwrapHtmlText(html: string): string {
  let verbatim = 0;
  return html.replace(TOKENS, (token) => {
    if (token.startsWith('<')) {
      const tag = VERBATIM.exec(token);
      if (tag) verbatim = Math.max(0, verbatim + (tag[1] ? -1 : 1));
      return token;
    }
    if (verbatim > 0 || !token.includes('\n') || token.trim() === '') return token;
    return token.replace(/[ \t]*\r?\n[ \t]*/g, ' ');
  });
}
