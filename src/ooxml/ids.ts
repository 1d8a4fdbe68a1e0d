/** Bookmark starts and ends; drawing object ids (wp:docPr, pic:cNvPr); paragraph ids. */
const IDS = /<w:bookmark(Start|End)\b([^>]*?)\/>|(<(?:wp:docPr|pic:cNvPr)\b[^>]*?\bid=")(\d+)(")|\bw14:paraId="[0-9A-Fa-f]+"/g;

/**
 * Tracked changes (each its own id; range starts and ends in pairs) and content controls' ids
 * (`w:sdtPr/w:id`). Comments keep theirs: the notes merger numbers them with their parts.
 */
const CHANGE_IDS =
  /<w:(ins|del|moveFrom|moveTo|rPrChange|pPrChange|sectPrChange|tblPrChange|trPrChange|tcPrChange|tblGridChange|numberingChange|cellIns|cellDel|cellMerge|(?:moveFrom|moveTo|customXmlIns|customXmlDel|customXmlMoveFrom|customXmlMoveTo)Range(Start|End))\b([^>]*?)\bw:id="[^"]*"|<w:id w:val="-?\d+"\/>/g;

/** CHANGE_IDS's elements without their ids: where it finds nothing, a renumbering need not run it. */
const CHANGE_ELEMENTS =
  /<w:(?:ins|del|moveFrom|moveTo|rPrChange|pPrChange|sectPrChange|tblPrChange|trPrChange|tcPrChange|tblGridChange|numberingChange|cellIns|cellDel|cellMerge|(?:moveFrom|moveTo|customXmlIns|customXmlDel|customXmlMoveFrom|customXmlMoveTo)Range(?:Start|End))\b|<w:id w:val=/;

/** Whether XML may hold tracked changes or content controls' ids (CHANGE_IDS), which a renumbering must see. */
export function holdsChangeIds(xml: string): boolean {
  return CHANGE_ELEMENTS.test(xml);
}

/** IDS's elements without their ids: where it finds nothing, a renumbering need not run IDS. */
const COMMON_ELEMENTS = /<w:bookmark(?:Start|End)\b|<(?:wp:docPr|pic:cNvPr)\b|\bw14:paraId="/;

/** Whether XML may hold bookmarks, drawing object ids or paragraph ids (IDS), which a renumbering must see. */
export function holdsCommonIds(xml: string): boolean {
  return COMMON_ELEMENTS.test(xml);
}

/** Which of the ids a part may hold (the caller knows where they can come from); a pass runs only for those. */
export interface IdKinds {
  common: boolean;
  changes: boolean;
}

/** Every kind: for XML whose ids nobody has accounted for (markup from the data, say). */
export const ANY_IDS: IdKinds = { common: true, changes: true };

/**
 * Repeated blocks repeat ids that must be unique in a document: bookmark ids and names,
 * drawing object ids, paragraph ids, tracked-change and content-control ids. This pass renumbers
 * them over the finished XML.
 */
export class IdRenumberer {
  private bookmark = 0;
  private drawing = 1;
  private paraId = 0x10000000;
  /** Tracked-change ids, above any bookmark's (Word counts both as annotations). */
  private change = 0x100000;
  private contentControl = 0x10000000;
  private readonly names = new Map<string, number>();

  /**
   * One scan over the part (four separate replaces cost 50% more on merged documents); changes and
   * content controls when it has any. `may`: what the caller knows the part can hold (a merge of a
   * template part without bookmarks, drawings and paragraph ids has none): a kind it cannot hold
   * is not searched for, which leaves the part and the counters as the search would.
   */
  part(xml: string, may: IdKinds = ANY_IDS): string {
    const renumbered = may.common ? this.common(xml) : xml;
    return may.changes && holdsChangeIds(renumbered) ? this.changes(renumbered) : renumbered;
  }

  private changes(xml: string): string {
    const open = new Map<string, number[]>();
    return xml.replace(CHANGE_IDS, (whole, element: string | undefined, edge: string | undefined, attrs: string | undefined) => {
      if (element === undefined) return `<w:id w:val="${this.contentControl++}"/>`;
      const id = /\bw:id="([^"]*)"/.exec(whole)![1]!;
      const key = `${element.replace(/(Start|End)$/, '')}:${id}`;
      let fresh: number | undefined;
      if (edge === 'End') fresh = open.get(key)?.shift();
      if (fresh === undefined) fresh = this.change++;
      if (edge === 'Start') open.set(key, [...(open.get(key) ?? []), fresh]);
      return `<w:${element}${attrs}w:id="${fresh}"`;
    });
  }

  private common(xml: string): string {
    const open = new Map<string, number[]>();
    return xml.replace(
      IDS,
      (
        whole,
        kind: string | undefined,
        attrs: string | undefined,
        drawing: string | undefined,
        _id: string | undefined,
        quote: string | undefined,
      ) => {
        if (drawing !== undefined) return `${drawing}${this.drawing++}${quote!}`;
        if (kind === undefined) return `w14:paraId="${(this.paraId++).toString(16).toUpperCase()}"`;
        const id = /w:id="([^"]*)"/.exec(attrs!)?.[1];
        if (id === undefined) return whole;
        if (kind === 'Start') {
          const fresh = this.bookmark++;
          open.set(id, [...(open.get(id) ?? []), fresh]);
          let out = attrs!.replace(/w:id="[^"]*"/, `w:id="${fresh}"`);
          out = out.replace(/w:name="([^"]*)"/, (_m, name: string) => {
            const seen = this.names.get(name) ?? 0;
            this.names.set(name, seen + 1);
            return `w:name="${seen === 0 ? name : `${name}_${seen + 1}`}"`;
          });
          return `<w:bookmarkStart${out}/>`;
        }
        const pending = open.get(id);
        const fresh = pending?.shift();
        if (fresh === undefined) return ''; // an end without a start
        return `<w:bookmarkEnd${attrs!.replace(/w:id="[^"]*"/, `w:id="${fresh}"`)}/>`;
      },
    );
  }
}
