/**
 * A unified diff of two texts, line by line, for showing exactly what a command will write. Files
 * here are small configuration files; past MAX_CELLS the whole old text is shown removed and the
 * new one added (still exact, just not minimal).
 */
const CONTEXT = 3;
const MAX_CELLS = 4_000_000;

type Op = { kind: ' ' | '-' | '+'; line: string };

function diffOps(a: string[], b: string[]): Op[] {
  if (a.length * b.length > MAX_CELLS)
    return [...a.map((line) => ({ kind: '-' as const, line })), ...b.map((line) => ({ kind: '+' as const, line }))];
  // Longest common subsequence, from the end, then walked from the start.
  const width = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i * width + j] = a[i] === b[j] ? lcs[(i + 1) * width + j + 1] + 1 : Math.max(lcs[(i + 1) * width + j], lcs[i * width + j + 1]);
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      ops.push({ kind: ' ', line: a[i++] });
      j++;
    } else if (i < a.length && (j === b.length || lcs[(i + 1) * width + j] >= lcs[i * width + j + 1]))
      ops.push({ kind: '-', line: a[i++] });
    else ops.push({ kind: '+', line: b[j++] });
  }
  return ops;
}

const linesOf = (text: string): string[] => (text === '' ? [] : text.replace(/\r?\n$/, '').split(/\r?\n/));

/** `--- a` / `+++ b` and `@@` hunks with 3 lines of context; '' when the texts are the same. */
export function unifiedDiff(before: string, after: string, fromName: string, toName: string): string {
  const a = linesOf(before);
  const b = linesOf(after);
  const ops = diffOps(a, b);
  if (ops.every((op) => op.kind === ' ')) return '';
  const out = [`--- ${fromName}`, `+++ ${toName}`];
  // Positions (in old and new lines) before each op, to number the hunks.
  const at: { a: number; b: number }[] = [];
  let pa = 0;
  let pb = 0;
  for (const op of ops) {
    at.push({ a: pa, b: pb });
    if (op.kind !== '+') pa++;
    if (op.kind !== '-') pb++;
  }
  let index = 0;
  while (index < ops.length) {
    if (ops[index].kind === ' ') {
      index++;
      continue;
    }
    const start = Math.max(0, index - CONTEXT);
    let end = index;
    // Extend over changes closer than twice the context, then add the trailing context.
    for (let k = index; k < ops.length; k++) {
      if (ops[k].kind !== ' ') end = k;
      else if (k - end > 2 * CONTEXT) break;
    }
    const stop = Math.min(ops.length, end + CONTEXT + 1);
    const hunk = ops.slice(start, stop);
    const oldCount = hunk.filter((op) => op.kind !== '+').length;
    const newCount = hunk.filter((op) => op.kind !== '-').length;
    const oldStart = oldCount ? at[start].a + 1 : at[start].a;
    const newStart = newCount ? at[start].b + 1 : at[start].b;
    out.push(`@@ -${oldStart},${oldCount} +${newStart},${newCount} @@`);
    for (const op of hunk) out.push(`${op.kind}${op.line}`);
    index = stop;
  }
  return `${out.join('\n')}\n`;
}
