import {
  attr,
  childElements,
  element,
  escapeAttr,
  parseXml,
  serialize,
  serializeDocument,
  setAttr,
  type XmlDocument,
  type XmlElement,
} from '../ooxml/xml.js';
import { PPR_ORDER, RPR_ORDER, addMissingProperties } from '../ooxml/properties-order.js';
import type { OoxmlPackage } from '../ooxml/package.js';
import { relatedPart, type PartCopier } from './parts.js';

/** Merges each appended document's styles into the first document's styles part. */
export class StyleMerger {
  private styles: XmlDocument | undefined;

  constructor(private readonly copier: PartCopier) {}

  /**
   * Same id and definition: shared; same id, other definition: the newcomer is renamed.
   * `ownDefault`: when the newcomer's docDefaults differ, the style its unstyled paragraphs must name.
   */
  merge(source: OoxmlPackage, main: string, n: number): { map: Map<string, string>; ownDefault: string | undefined } {
    const map = new Map<string, string>();
    const sourcePart = relatedPart(source, main, 'styles');
    if (!sourcePart || !source.has(sourcePart)) return { map, ownDefault: undefined };
    const basePart = this.copier.basePart(
      'styles',
      source.text(sourcePart)!,
      'application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml',
    );
    if (source.text(sourcePart) === this.copier.pkg.text(basePart) && !this.styles) return { map, ownDefault: undefined };
    this.styles ??= parseXml(this.copier.pkg.text(basePart)!, basePart);
    const known = new Map(childElements(this.styles.root, 'w:style').map((s) => [attr(s, 'w:styleId') ?? '', s]));
    const sourceRoot = parseXml(source.text(sourcePart)!, sourcePart).root;
    const incoming = childElements(sourceRoot, 'w:style');
    const ownDefault = carryDocDefaults(this.styles.root, sourceRoot);
    const added: XmlElement[] = [];
    for (const style of incoming) {
      const id = attr(style, 'w:styleId') ?? '';
      const mine = known.get(id);
      if (mine && serialize(mine) === serialize(style)) continue;
      if (mine) {
        let fresh = `${id}J${n}`;
        for (let i = 2; known.has(fresh); i++) fresh = `${id}J${n}_${i}`;
        map.set(id, fresh);
        setAttr(style, 'w:styleId', fresh);
        style.attrs = style.attrs.filter(([key]) => key !== 'w:default'); // one default per type: the first document's
        const name = childElements(style, 'w:name')[0];
        if (name) setAttr(name, 'w:val', `${attr(name, 'w:val') ?? id} (${n})`);
        known.set(fresh, style);
      } else {
        known.set(id, style);
      }
      added.push(style);
    }
    for (const style of added) {
      for (const child of childElements(style)) {
        if (['w:basedOn', 'w:next', 'w:link'].includes(child.name)) {
          const value = attr(child, 'w:val');
          if (value && map.has(value)) setAttr(child, 'w:val', map.get(value)!);
        }
      }
      this.styles.root.children.push(style);
    }
    this.copier.pkg.setText(basePart, serializeDocument(this.styles));
    return { map, ownDefault };
  }
}

const SPEC_RUN_DEFAULTS = ['<w:sz w:val="20"/>', '<w:szCs w:val="20"/>'];

function defaultsOf(root: XmlElement, kind: 'rPr' | 'pPr'): XmlElement[] {
  const holder = childElements(root, 'w:docDefaults')[0];
  const wrapper = holder && childElements(holder, kind === 'rPr' ? 'w:rPrDefault' : 'w:pPrDefault')[0];
  const props = wrapper && childElements(wrapper, `w:${kind}`)[0];
  return props ? childElements(props) : [];
}

/**
 * Appended paragraphs would take the first document's docDefaults. When the appended document's
 * differ, they move into its root paragraph styles (so those are renamed apart), with the
 * schema's defaults for what only the first document sets; returns the appended document's
 * default paragraph style, which its unstyled paragraphs must then name.
 */
function carryDocDefaults(base: XmlElement, source: XmlElement): string | undefined {
  const sourceDefaults = childElements(source, 'w:docDefaults')[0];
  const baseDefaults = childElements(base, 'w:docDefaults')[0];
  if ((sourceDefaults ? serialize(sourceDefaults) : '') === (baseDefaults ? serialize(baseDefaults) : '')) return undefined;
  const paragraphStyles = childElements(source, 'w:style').filter((s) => attr(s, 'w:type') === 'paragraph');
  const fallback = parseXml(`<w:rPr xmlns:w="${W_NS}">${SPEC_RUN_DEFAULTS.join('')}</w:rPr>`, 'defaults').root;
  const runDefaults = [...defaultsOf(source, 'rPr'), ...childElements(fallback)];
  const paragraphDefaults = defaultsOf(source, 'pPr');
  for (const style of paragraphStyles.filter((s) => childElements(s, 'w:basedOn').length === 0)) {
    const ensure = (name: 'w:pPr' | 'w:rPr') => {
      let props = childElements(style, name)[0];
      if (!props) {
        props = element(name);
        style.children.push(props);
      }
      return props;
    };
    if (paragraphDefaults.length > 0) addMissingProperties(ensure('w:pPr'), paragraphDefaults.map(cloneElement), PPR_ORDER);
    addMissingProperties(ensure('w:rPr'), runDefaults.map(cloneElement), RPR_ORDER);
    // CT_Style: pPr, rPr and tblPr come after the names and flags.
    style.children = [
      ...style.children.filter((c) => !(c.kind === 'element' && STYLE_TAIL.includes(c.name))),
      ...STYLE_TAIL.flatMap((name) => childElements(style, name)),
    ];
  }
  const byDefault = paragraphStyles.find((s) => attr(s, 'w:default') === '1' || attr(s, 'w:default') === 'true');
  return byDefault ? attr(byDefault, 'w:styleId') : undefined;
}

const W_NS = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const STYLE_TAIL = ['w:pPr', 'w:rPr', 'w:tblPr', 'w:trPr', 'w:tcPr', 'w:tblStylePr'];

function cloneElement(node: XmlElement): XmlElement {
  return {
    kind: 'element',
    name: node.name,
    attrs: node.attrs.map(([k, v]) => [k, v] as [string, string]),
    children: node.children.map((c) => (c.kind === 'element' ? cloneElement(c) : { ...c })),
  };
}

/** Paragraphs without a style of their own name `styleId`. */
export function withParagraphStyle(content: string, styleId: string): string {
  const pStyle = `<w:pStyle w:val="${escapeAttr(styleId)}"/>`;
  return content
    .replace(/<w:pPr\/>/g, '<w:pPr></w:pPr>')
    .replace(/<w:p(\s[^>]*)?\/>/g, (_all, attrs: string | undefined) => `<w:p${attrs ?? ''}><w:pPr>${pStyle}</w:pPr></w:p>`)
    .replace(/(<w:p(?:\s[^>]*)?>)(<w:pPr>)?/g, (whole, open: string, pPr: string | undefined, offset: number, all: string) => {
      if (pPr) return all.startsWith('<w:pStyle', offset + whole.length) ? whole : `${open}<w:pPr>${pStyle}`;
      return `${open}<w:pPr>${pStyle}</w:pPr>`;
    });
}
