/**
 * Random preview inputs, the same for a seed: log lines with the words the notable scan looks for,
 * JSON, search results, CJK, emoji and lone surrogates, long lines, and what a lookahead of the scan
 * reads across a line break (`result` before a `:` on the next line, a key's quote before its colon,
 * a colon before its value), with random budgets, kinds and marker options. The equality test
 * (previewEquality.test.ts) previews each and compares with what the previous implementation gave.
 */
import type { PreviewOptions } from '../../../src/core/preview';
import type { Rng } from './prng';

export interface PreviewCase {
  content: string | Buffer;
  options: PreviewOptions;
}

const WORDS = [
  'error',
  'ERROR',
  'errors',
  'Error:',
  'TypeError:',
  'failed',
  'FAIL',
  'failures=2',
  '3 failed',
  'no errors',
  '0 errors,',
  'warning',
  'WARN',
  'deprecated',
  'total',
  'Total:',
  'passed',
  'summary',
  'exit code 1',
  'npm ERR!',
  'not ok 3',
  'no such file',
  'Traceback',
  'panicked',
  'timed out',
  'out of memory',
  'result:',
  'results =',
  'matches',
  '12 matches',
  'src/a.ts:12:error here',
  '错误',
  '失败',
  '警告',
  '合计',
  'エラー',
  'ok',
  'done',
  'info',
  'job',
  'took',
  'ms',
];
const FILLER = [
  'a',
  'the',
  'x',
  'é',
  '日本語',
  '😀',
  '\ud800',
  '\udc00',
  '\t',
  '  ',
  '\r',
  '0xdeadbeef42',
  '2024-05-18T10:00:01Z',
  '42',
  '-',
  '_',
  '=',
];
/** What a line may end with, and the next begin with, that a lookahead of the scan reads across. */
const LINE_ENDS = ['result', 'results', 'Result ', '"total"', '"errors":', '"warnings": [', '"exitCode":  ', '{', ' ', '\t', ':', '"'];
const LINE_STARTS = [':', '=', ' :', '  0', '\t]', '}', '"', 'null', '-1', ' = 3', '   ', ''];

function line(rng: Rng): string {
  const parts: string[] = [];
  if (rng.chance(0.15)) parts.push(rng.pick(LINE_STARTS));
  const words = rng.chance(0.02) ? rng.int(50, 5000) : rng.int(0, 14);
  for (let i = 0; i < words; i++) {
    parts.push(rng.chance(0.3) ? rng.pick(WORDS) : rng.pick(FILLER));
    if (rng.chance(0.7)) parts.push(' ');
  }
  if (rng.chance(0.15)) parts.push(rng.pick(LINE_ENDS));
  return parts.join('');
}

function json(rng: Rng, lines: number): string {
  const keys = ['"total"', '"errors"', '"numFailedTests"', '"error"', '"warnings"', '"status"', '"accountId"', '"message"', '"result"'];
  const values = ['0', '3', 'null', 'false', '""', '[]', '[ ]', '{}', '"boom"', '"ok"', '[\n    1\n  ]'];
  const out = ['{'];
  for (let i = 0; i < lines; i++)
    out.push(`  ${rng.pick(keys)}${rng.pick([':', ' :', '\n:'])}${rng.pick([' ', '\n  ', ''])}${rng.pick(values)},`);
  out.push('  "end": 1\n}');
  return out.join('\n');
}

/** `count` cases from `rng`: contents of 40 to 400 KB, a few of them bytes (and then, some, with a capture gap). */
export function previewCases(rng: Rng, count: number): PreviewCase[] {
  const cases: PreviewCase[] = [];
  for (let n = 0; n < count; n++) {
    const size = rng.int(40_000, 400_000);
    const lines: string[] = [];
    const asJson = rng.chance(0.15);
    let length = 0;
    while (length < size) {
      const next = asJson && rng.chance(0.5) ? json(rng, rng.int(1, 40)) : line(rng);
      lines.push(next);
      length += next.length + 1;
    }
    const text = lines.join(rng.chance(0.1) ? '\r\n' : '\n') + (rng.chance(0.5) ? '\n' : '');
    const options: PreviewOptions = {
      budgetBytes: rng.chance(0.3) ? rng.int(512, 4000) : rng.int(4000, 40_000),
      kind: rng.pick(['command', 'search', 'json', 'generic', undefined] as const),
    };
    if (rng.chance(0.8)) options.outputId = 'out_0123456789abcdef01234567';
    if (rng.chance(0.2)) options.copyComplete = false;
    if (rng.chance(0.1)) options.notable = false;
    if (rng.chance(0.1)) options.unavailableReason = 'the store is full';
    if (rng.chance(0.05)) options.omittedNote = 'stderr is in the merged copy';
    const asBytes = rng.chance(0.3);
    const content = asBytes ? Buffer.from(text, 'utf8') : text;
    if (asBytes && rng.chance(0.4)) {
      options.gapOffset = rng.int(0, content.length);
      options.droppedBytes = rng.int(1, 1_000_000);
    }
    cases.push({ content, options });
  }
  return cases;
}
