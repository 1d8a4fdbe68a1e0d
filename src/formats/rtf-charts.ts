/**
 * Charts embedded in an RTF document. RTF has no chart of its own: a chart travels as an OLE
 * object (`{\object ... {\*\objclass MSGraph.Chart.8}{\*\objname sales} ... {\result picture}}`),
 * which the office turns into a picture of its design-time data. Merging cannot bind such a chart
 * to a block's rows: a merge whose data names the chart is refused, naming it, rather than print
 * stale numbers; a chart no data names stays as drawn (see operations/).
 */
export interface RtfChart {
  /** The object's name (`\objname`), which binds a chart to a merge block in TX Text Control. */
  name: string | undefined;
  /** The OLE class (`\objclass`), e.g. MSGraph.Chart.8. */
  objectClass: string;
}

interface Group {
  leading: string[];
  seenText: boolean;
  text: string;
  object?: { name?: string; objectClass?: string };
}

const CONTROL_WORD = /\\([a-zA-Z]{1,32})(-?\d{1,10})? ?/y;
const CHART_CLASS = /chart/i;
const TEXT_RUN = /[^{}\\]+/y;

export function rtfCharts(input: Buffer): RtfChart[] {
  // Most RTF has no OLE object at all: a native search, not a walk over every byte.
  if (!input.includes('\\objclass')) return [];
  const rtf = input.toString('latin1');
  const charts: RtfChart[] = [];
  const stack: Group[] = [];
  let i = 0;
  while (i < rtf.length) {
    const c = rtf[i]!;
    const top = stack[stack.length - 1];
    if (c === '{') {
      stack.push({ leading: [], seenText: false, text: '' });
      i++;
    } else if (c === '}') {
      i++;
      const group = stack.pop();
      if (!group) continue;
      const owner = [...stack].reverse().find((g) => g.object);
      if (owner?.object && group.leading.includes('objclass')) owner.object.objectClass = group.text.trim();
      if (owner?.object && group.leading.includes('objname')) owner.object.name = group.text.trim();
      if (group.object?.objectClass && CHART_CLASS.test(group.object.objectClass)) {
        charts.push({ name: group.object.name || undefined, objectClass: group.object.objectClass });
      }
    } else if (c === '\\') {
      CONTROL_WORD.lastIndex = i;
      const word = CONTROL_WORD.exec(rtf);
      if (!word) {
        const next = rtf[i + 1];
        if (next === "'") {
          if (top) top.text += String.fromCharCode(parseInt(rtf.slice(i + 2, i + 4), 16) || 0x3f);
          i += 4;
        } else {
          if (top && next !== '*') top.text += next ?? '';
          i += 2;
        }
        continue;
      }
      i = CONTROL_WORD.lastIndex;
      const name = word[1]!.toLowerCase();
      if (name === 'bin') {
        i += Math.max(0, Number(word[2] ?? 0));
        continue;
      }
      if (top && !top.seenText) {
        top.leading.push(name);
        if (name === 'object') top.object = {};
      }
    } else {
      TEXT_RUN.lastIndex = i;
      TEXT_RUN.exec(rtf);
      const text = rtf.slice(i, TEXT_RUN.lastIndex).replace(/[\r\n]/g, '');
      i = TEXT_RUN.lastIndex;
      if (top && text) {
        top.seenText = true;
        // Only short destinations are kept as text (names and classes), never a picture's hex.
        if (top.text.length < 256) top.text += text.slice(0, 256);
      }
    }
  }
  return charts;
}

/** Why a chart of an RTF template cannot take merge data, naming it. */
export function rtfChartProblem(chart: RtfChart): string {
  const name = chart.name ? `"${chart.name}"` : 'without a name';
  return (
    `the chart ${name} (${chart.objectClass}) is an object embedded in RTF, which merging cannot bind to a merge block's rows: ` +
    'it shows its design-time data, and merge data naming it is refused. Save the template as DOCX (charts there are bound to the merge block of their name), or remove the chart.'
  );
}
