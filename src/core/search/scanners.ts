/**
 * Literal scanners: find where one of a few literal strings occurs in UTF-8 bytes, at native speed
 * (V8's regular-expression engine on literals, which cannot backtrack, or Buffer.indexOf).
 *
 * Each scanner is exact for its literals: a case-insensitive one matches exactly the texts RE2's
 * `(?i)` folding matches (simple case folding, which JavaScript's `iu` folding also implements;
 * test/unit/searchEngine.test.ts checks the two against each other over every cased code point).
 * So a literal search needs nothing else, and a regular expression uses a scanner over its
 * required literals to find the lines worth matching.
 *
 * Where the bytes allow, the regular expression only sees the slices where a match can start: an
 * anchor (a few characters of each literal, as the handful of byte strings their case variants
 * spell) is found with Buffer.indexOf over the raw bytes, and the slices before it are skipped
 * without being decoded (see `chooseAnchors`).
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
  const spelling = spell(literals, caseSensitive);
  // A fresh RegExp per scanner (V8 reuses the compiled code): its lastIndex is this scan's alone.
  return regexScanner(bytes, new RegExp(spelling.source, 'g'), spelling.longest, chooseAnchors(bytes, spelling));
}

/** What a set of literals compiles to, kept per search's literals (a file search makes a scanner per window). */
interface Spelling {
  /** The latin1 source matching the literals' UTF-8 bytes (and their folded variants). */
  source: string;
  /** The most bytes a match can take. */
  longest: number;
  /** Per literal, the anchors it could be found by (`chooseAnchors` picks one); empty: none. */
  anchors: Anchor[][];
}

/**
 * A few consecutive characters of a literal, as the byte strings their case variants spell: every
 * match of the literal contains one of `needles`, at most `lead` bytes after the match starts.
 */
interface Anchor {
  needles: Buffer[];
  lead: number;
}

const spellings = new Map<string, Spelling>();
const SPELLINGS_KEPT = 32;

function spell(literals: readonly string[], caseSensitive: boolean): Spelling {
  const key = JSON.stringify([literals, caseSensitive]);
  let spelling = spellings.get(key);
  if (spelling) return spelling;
  // Each character's forms: its UTF-8 bytes, or those of each of its case variants.
  const forms = literals.map((literal) =>
    [...literal].map((char) => (caseSensitive ? [char] : caseVariants(char)).map((variant) => Buffer.from(variant, 'utf8'))),
  );
  const source = forms.map((chars) => chars.map(formsSource).join('')).join('|');
  // A match is at most 4 bytes per character of its literal (UTF-8), and may run on past a slice.
  const longest = Math.max(...literals.map((literal) => 4 * [...literal].length));
  spelling = { source, longest, anchors: forms.map(anchorsOf) };
  if (spellings.size >= SPELLINGS_KEPT) spellings.delete(spellings.keys().next().value as string);
  spellings.set(key, spelling);
  return spelling;
}

/** A latin1 source matching any of a character's forms (the UTF-8 bytes of it and its case variants). */
function formsSource(forms: readonly Buffer[]): string {
  // Single bytes (ASCII letters) as one class: V8 scans for a class fastest.
  const single = forms.filter((bytes) => bytes.length === 1).map(byteEscapes);
  const longer = forms.filter((bytes) => bytes.length > 1).map(byteEscapes);
  const alternatives = [...(single.length > 1 ? [`[${single.join('')}]`] : single), ...longer];
  return alternatives.length === 1 ? alternatives[0] : `(?:${alternatives.join('|')})`;
}

/** At most this many byte strings per anchor: each is a pass of Buffer.indexOf over the bytes. */
const ANCHOR_NEEDLES = 4;
/** An anchor's shortest byte string is at least this long (when its literal is), so it is rare enough to skip by. */
const ANCHOR_BYTES = 3;

/**
 * The anchors of a literal (its characters' forms): from each character, the fewest characters on
 * that spell byte strings of at least ANCHOR_BYTES, as long as they are at most ANCHOR_NEEDLES
 * strings. A literal shorter than that is its own anchor.
 */
function anchorsOf(chars: readonly (readonly Buffer[])[]): Anchor[] {
  const anchors: Anchor[] = [];
  const total = chars.reduce((sum, forms) => sum + Math.min(...forms.map((bytes) => bytes.length)), 0);
  const enough = Math.min(ANCHOR_BYTES, total);
  let lead = 0;
  for (let start = 0; start < chars.length; start++) {
    let needles: Buffer[] = [Buffer.alloc(0)];
    for (let end = start; end < chars.length && needles.length <= ANCHOR_NEEDLES; end++) {
      needles = needles.flatMap((needle) => chars[end].map((bytes) => Buffer.concat([needle, bytes])));
      if (needles.length <= ANCHOR_NEEDLES && Math.min(...needles.map((needle) => needle.length)) >= enough) {
        anchors.push({ needles, lead });
        break;
      }
    }
    lead += Math.max(...chars[start].map((bytes) => bytes.length));
  }
  return anchors;
}

/**
 * Cost model for choosing anchors, per byte searched, in units of one memchr pass (Buffer.indexOf
 * runs memchr for a needle's first byte, then compares the rest where that byte is). Measured on the
 * bench's 59 MB log: a pass for a needle whose first byte is rare takes ~2.5 ms, one whose first byte
 * is every 70th byte ~17 ms and every 28th ~24 ms, so each occurrence of the first byte costs about
 * as much as 300 bytes of memchr; the sliced regular expression (latin1 decoding included) takes
 * ~36 ms, 14 passes. Anchors are used when they cost at most ANCHOR_BUDGET: worth it when they skip
 * most slices. Where they skip nothing (they occur in every slice), the scanner drops them after
 * ANCHOR_MISSES slices in a row.
 */
const FIRST_BYTE_COST = 300;
const ANCHOR_BUDGET = 9;
const ANCHOR_MISSES = 4;
/** Bytes of the window whose byte counts estimate how often a first byte occurs: SAMPLE_PIECES spread pieces. */
const SAMPLE_PIECES = 8;
const SAMPLE_PIECE_BYTES = 512;

/**
 * One anchor per literal for this window, the cheapest to find by the counts of first bytes in a
 * sample of it, or none when finding them would cost more than ANCHOR_BUDGET (or a literal has no
 * anchor). The choice only decides how fast the scan is: every anchor is in every match.
 */
function chooseAnchors(bytes: Buffer, spelling: Spelling): Anchor[] | undefined {
  if (bytes.length < 2 * SLICE_BYTES || spelling.anchors.some((anchors) => anchors.length === 0)) return undefined;
  const counts = new Uint32Array(256);
  const stride = Math.floor(bytes.length / SAMPLE_PIECES);
  for (let piece = 0; piece < SAMPLE_PIECES; piece++) {
    const end = piece * stride + SAMPLE_PIECE_BYTES;
    for (let at = piece * stride; at < end; at++) counts[bytes[at]]++;
  }
  const cost = (anchor: Anchor): number =>
    anchor.needles.reduce((sum, needle) => sum + 1 + (FIRST_BYTE_COST * counts[needle[0]]) / (SAMPLE_PIECES * SAMPLE_PIECE_BYTES), 0);
  const chosen: Anchor[] = [];
  let total = 0;
  for (const anchors of spelling.anchors) {
    let best = anchors[0];
    for (const anchor of anchors) if (cost(anchor) < cost(best)) best = anchor;
    chosen.push(best);
    total += cost(best);
  }
  return total <= ANCHOR_BUDGET ? chosen : undefined;
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
 * The earliest offset at or after `from` where a match can start: for each literal, where one of
 * its anchor's needles next occurs, less the bytes before the anchor (Infinity: no match ahead).
 * Each needle's next occurrence is kept until the scan passes it, so each needle's pass over the
 * bytes is made once.
 */
function anchorSkipper(bytes: Buffer, anchors: readonly Anchor[]): (from: number) => number {
  const next = anchors.map((anchor) => anchor.needles.map(() => -1));
  return (from) => {
    let earliest = Infinity;
    anchors.forEach((anchor, which) => {
      const ahead = next[which];
      anchor.needles.forEach((needle, k) => {
        if (ahead[k] < from) {
          const at = bytes.indexOf(needle, from);
          ahead[k] = at < 0 ? Infinity : at;
        }
        earliest = Math.min(earliest, Math.max(from, ahead[k] - anchor.lead));
      });
    });
    return earliest;
  };
}

/**
 * Runs `regex` over `bytes` a slice at a time, each slice's text running on by `longest` bytes so a
 * match that starts in it is seen whole. The scan resumes where the last match ended, as one pass
 * of a global regular expression over the whole text would, so the matches are exactly that pass's.
 * With anchors, a slice starts where the next match can start at the earliest: none starts before.
 */
function regexScanner(bytes: Buffer, regex: RegExp, longest: number, anchors: Anchor[] | undefined): LiteralScanner {
  let earliest = anchors ? anchorSkipper(bytes, anchors) : undefined;
  let misses = 0;
  let sliceStart = 0;
  let text: string | undefined;
  let done = false;
  let found = -1;
  /** Decodes the slice after `start` where a match can start, the scan standing at `resume`. */
  const load = (start: number, resume: number): void => {
    const from = Math.max(start, resume);
    const at = earliest ? earliest(from) : from;
    if (at === Infinity) {
      done = true;
      return;
    }
    // Anchors that keep landing within the next slice skip nothing and cost their passes.
    misses = at < from + SLICE_BYTES ? misses + 1 : 0;
    if (misses >= ANCHOR_MISSES) earliest = undefined;
    sliceStart = at === from ? start : at;
    text = bytes.toString('latin1', sliceStart, Math.min(bytes.length, sliceStart + SLICE_BYTES + longest));
    regex.lastIndex = Math.max(0, resume - sliceStart);
  };
  return {
    find(from) {
      if (text === undefined && !done) load(from, from);
      // Re-use the last occurrence while it is still ahead; otherwise run on from where it was.
      while (!done && found < from) {
        const current = text as string;
        const resume = sliceStart + regex.lastIndex;
        const match = regex.exec(current);
        const lastSlice = sliceStart + current.length >= bytes.length;
        if (match && (match.index < SLICE_BYTES || lastSlice)) {
          found = sliceStart + match.index;
          continue;
        }
        if (lastSlice) {
          done = true;
          break;
        }
        // Nothing starts in the rest of this slice: the next one where a match can start, from where the scan stood.
        load(sliceStart + SLICE_BYTES, resume);
      }
      return found >= from ? found : -1;
    },
  };
}
