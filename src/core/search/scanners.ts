/**
 * Literal scanners: find where one of a few literal strings occurs in UTF-8 bytes, at native speed
 * (V8's regular-expression engine on literals, which cannot backtrack, or Buffer.indexOf).
 *
 * Each scanner is exact for its literals: a case-insensitive one matches exactly the texts RE2's
 * `(?i)` folding matches (simple case folding, which JavaScript's `iu` folding also implements;
 * test/unit/searchEngine.test.ts checks the two against each other over every cased code point).
 * So a literal search needs nothing else, and a regular expression uses a scanner over its
 * required literals to find the lines worth matching.
 */

export interface LiteralScanner {
  /** Byte offset of the first occurrence starting at or after `from`, or -1. Calls go forward only. */
  find(from: number): number;
}

/** `\xHH` for every byte: text as latin1, one character per byte. */
const byteEscapes = (bytes: Buffer): string => [...bytes].map((byte) => `\\x${byte.toString(16).padStart(2, '0')}`).join('');

/**
 * Bytes decoded as latin1 at a time. A string this small is made on V8's heap; one of a whole 4 MiB
 * window is made in fresh memory the kernel maps page by page, which cost more than the scan itself
 * (secretShapes.ts decodes its text the same way).
 */
const SLICE_BYTES = 64 * 1024;

/**
 * A scanner over `bytes` for any of `literals` (non-empty strings), case-sensitive or with RE2's
 * folding. It runs over the bytes as latin1 text (one character per byte, so indexes are byte
 * offsets), with each folded character spelt out as the UTF-8 bytes of its case variants.
 */
export function literalScanner(bytes: Buffer, literals: readonly string[], caseSensitive: boolean): LiteralScanner {
  if (caseSensitive && literals.length === 1) {
    const needle = Buffer.from(literals[0], 'utf8');
    return { find: (from) => bytes.indexOf(needle, from) };
  }
  const spell = (literal: string): string =>
    caseSensitive ? byteEscapes(Buffer.from(literal, 'utf8')) : [...literal].map(foldedBytesSource).join('');
  // A match is at most 4 bytes per character of its literal (UTF-8), and may run on past a slice.
  const longest = Math.max(...literals.map((literal) => 4 * [...literal].length));
  return regexScanner(bytes, new RegExp(literals.map(spell).join('|'), 'g'), longest);
}

/** A latin1 source matching the UTF-8 bytes of `char` and of every character it folds with. */
function foldedBytesSource(char: string): string {
  const encoded = caseVariants(char).map((variant) => Buffer.from(variant, 'utf8'));
  // Single bytes (ASCII letters) as one class: V8 scans for a class fastest.
  const single = encoded.filter((bytes) => bytes.length === 1).map(byteEscapes);
  const longer = encoded.filter((bytes) => bytes.length > 1).map(byteEscapes);
  const alternatives = [...(single.length > 1 ? [`[${single.join('')}]`] : single), ...longer];
  return alternatives.length === 1 ? alternatives[0] : `(?:${alternatives.join('|')})`;
}

/** Every cased character (one toLowerCase or toUpperCase changes), one after another: where case variants are found. */
let casedText: string | undefined;

/**
 * `char` and the characters RE2's `(?i)` matches for it: JavaScript's `iu` folding implements the
 * same simple case folding (checked in test/unit/searchEngine.test.ts), and every character that
 * folds with another is cased, so the variants are the cased characters `iu` matches.
 */
export function caseVariants(char: string): string[] {
  if (casedText === undefined) {
    const cased: string[] = [];
    for (let cp = 0; cp <= 0x1ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const each = String.fromCodePoint(cp);
      if (each.toLowerCase() !== each || each.toUpperCase() !== each) cased.push(each);
    }
    casedText = cased.join('');
  }
  const variants = new Set([char]);
  for (const match of casedText.matchAll(new RegExp(char.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&'), 'giu'))) variants.add(match[0]);
  return [...variants];
}

/**
 * Runs `regex` over `bytes` a slice at a time, each slice's text running on by `longest` bytes so a
 * match that starts in it is seen whole. The scan resumes where the last match ended, as one pass
 * of a global regular expression over the whole text would, so the matches are exactly that pass's.
 */
function regexScanner(bytes: Buffer, regex: RegExp, longest: number): LiteralScanner {
  let sliceStart = 0;
  let text = bytes.toString('latin1', 0, Math.min(bytes.length, SLICE_BYTES + longest));
  let done = false;
  let found = -1;
  return {
    find(from) {
      // Re-use the last occurrence while it is still ahead; otherwise run on from where it was.
      while (!done && found < from) {
        const resume = sliceStart + regex.lastIndex;
        const match = regex.exec(text);
        const lastSlice = sliceStart + text.length >= bytes.length;
        if (match && (match.index < SLICE_BYTES || lastSlice)) {
          found = sliceStart + match.index;
          continue;
        }
        if (lastSlice) {
          done = true;
          break;
        }
        // Nothing starts in the rest of this slice: the next one, from where the scan stood.
        sliceStart += SLICE_BYTES;
        text = bytes.toString('latin1', sliceStart, Math.min(bytes.length, sliceStart + SLICE_BYTES + longest));
        regex.lastIndex = Math.max(0, resume - sliceStart);
      }
      return found >= from ? found : -1;
    },
  };
}
