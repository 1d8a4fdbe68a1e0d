/**
 * Bookmark names of joined documents kept unique (Word compares them without case), and what
 * refers to a renamed bookmark following it: REF, PAGEREF, NOTEREF, GOTOBUTTON and bare-name
 * fields, HYPERLINK \l and internal hyperlinks (w:hyperlink w:anchor).
 */
export class BookmarkNames {
  private readonly taken = new Set<string>();

  /** Names of a document joined as it is (the first one). */
  observe(parts: readonly string[]): void {
    for (const part of parts) for (const name of bookmarkNames(part)) this.taken.add(name.toLowerCase());
  }

  /** The renames a joined document's bookmarks need (lower-case name -> fresh name); they are taken from then on. */
  renamesFor(parts: readonly string[]): Map<string, string> {
    const own = new Map<string, string>();
    for (const part of parts) for (const name of bookmarkNames(part)) own.set(name.toLowerCase(), name);
    const renames = new Map<string, string>();
    for (const [key, name] of own) {
      if (!this.taken.has(key)) continue;
      let n = 2;
      while (this.taken.has(`${key}_${n}`) || own.has(`${key}_${n}`)) n++;
      renames.set(key, `${name}_${n}`);
      this.taken.add(`${key}_${n}`);
    }
    for (const key of own.keys()) this.taken.add(key);
    return renames;
  }
}

function bookmarkNames(xml: string): string[] {
  return [...xml.matchAll(/<w:bookmarkStart\b[^>]*?\bw:name="([^"]*)"/g)].map((m) => m[1]!);
}

/** The part with its bookmarks renamed and every reference to them following. */
export function renameBookmarks(xml: string, renames: ReadonlyMap<string, string>): string {
  if (renames.size === 0) return xml;
  const fresh = (name: string) => renames.get(name.toLowerCase());
  let out = xml.replace(
    /(<w:(?:bookmarkStart\b[^>]*?\bw:name|hyperlink\b[^>]*?\bw:anchor)=")([^"]*)"/g,
    (whole, open: string, name: string) => {
      const to = fresh(name);
      return to ? `${open}${to}"` : whole;
    },
  );
  // Fields are rewritten only where an instruction names a renamed bookmark (most documents: none).
  const names = [...renames.keys()].map(escapeRegExp).join('|');
  const named = new RegExp(`<w:instrText\\b[^>]*>[^<]*(?:${names})|\\bw:instr="[^"]*(?:${names})`, 'i');
  // An instruction split over runs (even mid-name, as Word may write it) is looked at joined.
  const joined = out.includes('</w:instrText>')
    ? out.replace(/<\/w:instrText>(?:(?!<w:instrText\b|<w:fldChar\b)[\s\S])*?<w:instrText\b[^>]*>/g, '')
    : out;
  if (!named.test(joined)) return out;
  out = out.replace(/(\bw:instr=")([^"]*)"/g, (whole, open: string, instr: string) => {
    const to = renamedInstruction(instr, fresh);
    return to === instr ? whole : `${open}${to}"`;
  });
  // A complex field's instruction, split over runs as Word writes it: the whole goes into the first run.
  return out.replace(
    /(<w:fldChar\b[^>]*w:fldCharType="begin"[^>]*\/>)((?:(?!<w:fldChar\b)[\s\S])*?)(?=<w:fldChar\b)/g,
    (whole, begin: string, middle: string) => {
      const texts = [...middle.matchAll(/<w:instrText\b[^>]*>([^<]*)<\/w:instrText>/g)].map((m) => m[1]).join('');
      const to = renamedInstruction(texts, fresh);
      if (to === texts) return whole;
      let first = true;
      return (
        begin +
        middle.replace(/(<w:instrText\b[^>]*>)[^<]*(<\/w:instrText>)/g, (_m, a: string, b: string) => {
          const text = first ? to : '';
          first = false;
          return a + text + b;
        })
      );
    },
  );
}

/** Quotes as they stand in XML text or attributes. */
const QUOTE = '(?:"|&quot;)?';
const NAME = '([^\\s"&\\\\]+)';

/** An instruction (escaped as in the markup) with the bookmark it names renamed. */
function renamedInstruction(instr: string, fresh: (name: string) => string | undefined): string {
  const swap = (whole: string, open: string, name: string) => {
    const to = fresh(name);
    return to ? open + to : whole;
  };
  const keyword = /^\s*([A-Za-z]+)/.exec(instr)?.[1]?.toUpperCase();
  if (keyword && ['REF', 'PAGEREF', 'NOTEREF', 'GOTOBUTTON'].includes(keyword))
    return instr.replace(new RegExp(`^(\\s*[A-Za-z]+\\s+${QUOTE})${NAME}`), swap);
  if (keyword === 'HYPERLINK') return instr.replace(new RegExp(`(\\\\l\\s+${QUOTE})${NAME}`), swap);
  // A bookmark's name alone is a REF field.
  return instr.replace(/^(\s*)([^\s"&\\=]+)(?=\s|\\|$)/, swap);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
