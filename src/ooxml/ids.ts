/**
 * Repeated blocks repeat ids that must be unique in a document: bookmark ids and names,
 * drawing object ids and paragraph ids. This pass renumbers them over the finished XML.
 */
export class IdRenumberer {
  private bookmark = 0;
  private drawing = 1;
  private paraId = 0x10000000;
  private readonly names = new Map<string, number>();

  part(xml: string): string {
    const open = new Map<string, number[]>();
    return xml.replace(/<w:bookmark(Start|End)\b([^>]*?)\/>/g, (whole, kind: string, attrs: string) => {
      const id = /w:id="([^"]*)"/.exec(attrs)?.[1];
      if (id === undefined) return whole;
      if (kind === 'Start') {
        const fresh = this.bookmark++;
        open.set(id, [...(open.get(id) ?? []), fresh]);
        let out = attrs.replace(/w:id="[^"]*"/, `w:id="${fresh}"`);
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
      return `<w:bookmarkEnd${attrs.replace(/w:id="[^"]*"/, `w:id="${fresh}"`)}/>`;
    })
      .replace(/(<wp:docPr\b[^>]*?\bid=")(\d+)(")/g, (_m, a: string, _id: string, b: string) => `${a}${this.drawing++}${b}`)
      .replace(/(<pic:cNvPr\b[^>]*?\bid=")(\d+)(")/g, (_m, a: string, _id: string, b: string) => `${a}${this.drawing++}${b}`)
      .replace(/\bw14:paraId="[0-9A-Fa-f]+"/g, () => `w14:paraId="${(this.paraId++).toString(16).toUpperCase()}"`);
  }
}
