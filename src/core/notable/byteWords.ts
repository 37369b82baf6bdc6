/**
 * A word scan's regex (a trie of literal words, each with its end assertion: see `trie` in
 * patterns.ts) matched on the bytes themselves at a position the prefilter lists: a walk down a
 * table of transitions, no text decoded and nothing allocated per hit. Where the regex, anchored
 * there, would match, it gives that match's length and its word, else nothing.
 *
 * The regex tries a longer word before a word it extends, and as no two words differ only past a
 * point where the text picks one of them, the match is the deepest word on the text's path whose
 * end assertion holds: what the walk keeps. `\b` reads ASCII word characters; `\s` what it matches
 * in latin1; under the `i` flag only ASCII letters have another case (latin1's others do not fold
 * to ASCII in a regex without `u`).
 */

/** One word's match: its length in bytes, and what the word is (the caller's). */
export interface ByteWord<T> {
  length: number;
  value: T;
}

/** The end assertions the word tries use, as `trie` in patterns.ts writes them. */
export const WORD_END = '\\b';
export const ASSIGNED_END = '\\b(?=\\s{0,3}[:=])';
export const NO_END = '';

const END_KIND = new Map([
  [WORD_END, 1],
  [ASSIGNED_END, 2],
  [NO_END, 3],
]);

const isWordByte = (byte: number): boolean =>
  (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7a) || byte === 0x5f;
const isSpaceByte = (byte: number): boolean => (byte >= 0x09 && byte <= 0x0d) || byte === 0x20 || byte === 0xa0;

/**
 * The matcher of the words `ends` (latin1, each to its end assertion), in either ASCII case when
 * `ignoreCase`; `value` says what a word is. It returns the match at `at` in `text`, read up to
 * the text's end, or undefined.
 */
export function byteWords<T>(
  ends: ReadonlyMap<string, string>,
  ignoreCase: boolean,
  value: (word: string) => T,
): (text: Uint8Array, at: number) => ByteWord<T> | undefined {
  // Node n's transition on byte b is next[n * 256 + b] (0: none; node 0 is the root).
  let next = new Int32Array(256 * 64);
  const kinds: number[] = [0];
  const words: (ByteWord<T> | undefined)[] = [undefined];
  for (const [word, end] of ends) {
    const kind = END_KIND.get(end);
    if (kind === undefined) throw new Error(`no byte matcher for the end assertion ${end}`);
    let node = 0;
    for (let i = 0; i < word.length; i++) {
      const byte = word.charCodeAt(i);
      if (byte > 0xff) throw new Error(`word ${word} is not latin1`);
      if (next[node * 256 + byte] === 0) {
        const child = kinds.length;
        kinds.push(0);
        words.push(undefined);
        if ((child + 1) * 256 > next.length) {
          const larger = new Int32Array(next.length * 2);
          larger.set(next);
          next = larger;
        }
        const letter = (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7a;
        for (const variant of ignoreCase && letter ? [byte | 0x20, byte & ~0x20] : [byte]) next[node * 256 + variant] = child;
      }
      node = next[node * 256 + byte];
    }
    kinds[node] = kind;
    words[node] = { length: word.length, value: value(word) };
  }
  const table = next;
  const endKinds = Int8Array.from(kinds);
  return (text, at) => {
    let found: ByteWord<T> | undefined;
    let node = 0;
    for (let i = at; ; i++) {
      const kind = endKinds[node];
      if (kind !== 0 && holds(kind, text, i)) found = words[node];
      if (i >= text.length) return found;
      node = table[node * 256 + text[i]];
      if (node === 0) return found;
    }
  };
}

/** Whether the end assertion of `kind` holds after a word (at least one byte) that ends at `end`. */
function holds(kind: number, text: Uint8Array, end: number): boolean {
  if (kind === 3) return true;
  if (isWordByte(text[end - 1]) === (end < text.length && isWordByte(text[end]))) return false;
  if (kind === 1) return true;
  // (?=\s{0,3}[:=]): a colon or an equals sign after at most 3 blanks.
  let at = end;
  while (at < text.length && at - end < 3 && isSpaceByte(text[at])) at++;
  return at < text.length && (text[at] === 0x3a || text[at] === 0x3d);
}
