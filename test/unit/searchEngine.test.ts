import assert from 'node:assert/strict';
import { RE2JS } from 're2js';
import { compileSearch, searchBytes, MatchCollector, searchWindow, type SearchWindow } from '../../src/core/search';
import { caseVariants, literalScanner } from '../../src/core/search/scanners';
import { runAll } from '../../src/core/search/engine';
import { translatePattern, namesLineBreak } from '../../src/core/search/syntax';
import type { SearchOptions } from '../../src/core/types';
import { throwsWith } from './helpers/assertions';

const offsets = (text: string | Buffer, pattern: string, options: SearchOptions = {}): number[] =>
  searchBytes(
    Buffer.isBuffer(text) ? text : Buffer.from(text),
    compileSearch('out_x', pattern, { maxMatches: 1000, ...options }),
  ).matches.map((m) => m.offset);

describe('search engine (RE2 syntax, linear time)', () => {
  describe('case folding', () => {
    it("every cased character's variants are exactly the ones re2js's (?i) matches", () => {
      const cased: number[] = [];
      for (let cp = 0; cp <= 0x1ffff; cp++) {
        if (cp >= 0xd800 && cp <= 0xdfff) continue;
        const char = String.fromCodePoint(cp);
        if (char.toLowerCase() !== char || char.toUpperCase() !== char) cased.push(cp);
      }
      assert.ok(cased.length > 2800, `${cased.length} cased characters`);
      const differing: string[] = [];
      for (const cp of cased) {
        const char = String.fromCodePoint(cp);
        // (?i)c compiles to one rune instruction; its matchRune is RE2's folding test.
        const [rune] = (
          RE2JS.compile(RE2JS.quote(char), RE2JS.CASE_INSENSITIVE).re2().prog.inst as { op: number; matchRune(r: number): boolean }[]
        ).filter((inst) => inst.op === 8 || inst.op === 9);
        const re2 = cased.filter((other) => rune.matchRune(other)).join();
        const ours = caseVariants(char)
          .map((variant) => variant.codePointAt(0) as number)
          .sort((a, b) => a - b)
          .join();
        if (re2 !== ours) differing.push(`U+${cp.toString(16)}: re2 ${re2} ours ${ours}`);
      }
      assert.deepEqual(differing, []);
    });

    it('folds non-ASCII letters (Ü/ü, Σ/σ/ς, Я/я) and the ASCII letters with non-ASCII variants (K, KELVIN SIGN; S, LONG S)', () => {
      const text = 'ÜBER über Über\nΣΊΣΥΦΟΣ σίσυφος\nЯ я\nk K \u212a s S \u017f\n';
      const at = (needle: string): number[] => {
        const bytes = Buffer.from(text);
        const found: number[] = [];
        for (let i = bytes.indexOf(needle); i >= 0; i = bytes.indexOf(needle, i + 1)) found.push(i);
        return found;
      };
      assert.deepEqual(
        offsets(text, 'über'),
        [...at('ÜBER'), ...at('über'), ...at('Über')].sort((a, b) => a - b),
      );
      assert.deepEqual(
        offsets(text, 'σ'),
        [...at('Σ'), ...at('σ'), ...at('ς')].sort((a, b) => a - b),
      );
      assert.deepEqual(
        offsets(text, 'я', { regex: true }),
        [...at('Я'), ...at('я')].sort((a, b) => a - b),
      );
      assert.deepEqual(
        offsets(text, 'k'),
        [...at('k'), ...at('K'), ...at('\u212a')].sort((a, b) => a - b),
      );
      // \b is ASCII in RE2: LONG S is no word character, so no boundary follows it before the line break.
      assert.deepEqual(offsets(text, 's\\b', { regex: true }), [...at('s '), ...at('S ')]);
      assert.deepEqual(offsets(text, 'über', { caseSensitive: true }), at('über'));
    });
  });

  describe('syntax', () => {
    for (const [pattern, construct] of [
      ['(\\w+) \\1', 'a backreference'],
      ['(?<word>\\w+) \\k<word>', 'a named backreference'],
      ['total(?=:)', 'a lookahead'],
      ['status=(?!200)', 'a negative lookahead'],
      ['(?<=id=)\\d+', 'a lookbehind'],
      ['(?<!x)y', 'a negative lookbehind'],
      ['(?>a+)b', 'an atomic group'],
      ['a*+b', 'a possessive quantifier'],
    ]) {
      it(`refuses ${construct} with INVALID_ARGUMENT naming it: ${pattern}`, () => {
        const error = throwsWith(() => compileSearch('out_x', pattern, { regex: true }), 'INVALID_ARGUMENT');
        assert.ok(error.message.startsWith(`pattern ${JSON.stringify(pattern)} uses ${construct}`), error.message);
        assert.match(error.message, /RE2 syntax in time linear in the text/);
        assert.ok(String(error.details.construct).startsWith(construct));
      });
    }

    it('other syntax errors quote RE2 and suggest a literal search', () => {
      const error = throwsWith(() => compileSearch('out_x', '[a-', { regex: true }), 'INVALID_ARGUMENT');
      assert.equal(
        error.message,
        'pattern "[a-" is not a valid regular expression in RE2 syntax (missing closing ]: `[a-`). Fix it, or pass "regex": false to search for the literal text.',
      );
      throwsWith(() => compileSearch('out_x', 'a{2000}', { regex: true }), 'INVALID_ARGUMENT');
      // The same text literally is fine.
      assert.deepEqual(offsets('x [a- y', '[a-'), [2]);
    });

    it("takes JavaScript's \\uXXXX and \\u{…} escapes (outside \\Q…\\E) as RE2's \\x{…}", () => {
      assert.equal(translatePattern('caf\\u00e9 \\u{1F600} \\\\u0041 \\Q\\u0041\\E'), 'caf\\x{00e9} \\x{1F600} \\\\u0041 \\Q\\u0041\\E');
      assert.deepEqual(offsets('café 😀', 'caf\\u00e9 \\u{1F600}', { regex: true }), [0]);
    });

    it('knows when a pattern names a line break', () => {
      for (const yes of ['a\\nb', '\\x0a', '\\x0A', '\\x{a}', '\\x{000A}', '\\012', '(?s).', '(?is:a.b)', 'a\nb'])
        assert.equal(namesLineBreak(yes), true, yes);
      for (const no of ['\\s+', '[^x]', '\\x0ab', '\\\\n', '\\Q\\n\\E', '(?i)a', '(?-s).', '\\0123'])
        assert.equal(namesLineBreak(no), false, no);
    });
  });

  describe('plans', () => {
    const plan = (pattern: string, options: SearchOptions = {}): string => compileSearch('out_x', pattern, options).plan;

    it('plain text runs as a literal; a regex with a required literal scans for it; \\n and \\A/\\z match the whole text', () => {
      assert.equal(plan('ERROR (x)'), 'literal');
      assert.equal(plan('TOTAL_SUMMARY', { regex: true }), 'literal');
      assert.equal(plan('bad \uFFFD byte'), 'whole');
      const scan = compileSearch('out_x', 'ERROR .*ETIMEDOUT', { regex: true });
      assert.deepEqual([scan.plan, scan.literals], ['lines', ['ETIMEDOUT']]);
      assert.deepEqual(compileSearch('out_x', 'WARN|ERROR|FATAL', { regex: true }).literals, ['WARN', 'ERROR', 'FATAL']);
      assert.deepEqual(compileSearch('out_x', '[0-9]{3}-[0-9]{4}', { regex: true }).literals, [], 'a 1-byte literal is not worth a scan');
      assert.equal(plan('a\\nb', { regex: true }), 'whole');
      assert.equal(plan('[^\\n]+x', { regex: true }), 'lines', 'names \\n but cannot match one');
      assert.equal(plan('\\Aheader', { regex: true }), 'whole');
      assert.equal(plan('footer\\z', { regex: true }), 'whole');
    });

    it('a match never spans lines unless the pattern names a line break', () => {
      const text = 'key: "a\nb"\nstart\n  end\n';
      assert.deepEqual(offsets(text, '"[^"]*"', { regex: true }), [], '[^"] stops at the line end');
      assert.deepEqual(offsets(text, 'start\\s+end', { regex: true }), []);
      assert.deepEqual(offsets(text, 'start\\n\\s*end', { regex: true }), [text.indexOf('start')]);
      assert.deepEqual(offsets(text, '(?s)a.b', { regex: true }), [text.indexOf('a\nb')]);
      assert.deepEqual(offsets(text, '^', { regex: true }), [0, 8, 11, 17, 23]);
      assert.deepEqual(offsets(text, 'end$', { regex: true }), [19]);
      assert.deepEqual(offsets(text, '\\Akey', { regex: true }), [0]);
      assert.deepEqual(offsets(text, 'end\\n\\z', { regex: true }), [19]);
    });

    it('every plan gives the matches and offsets of one pass of RE2 over the text', () => {
      const lines = ['GET /a 200 ok', 'ERROR disk full', 'Ünïcödé ERROR', 'ERROR net ETIMEDOUT 30s', '', 'tail ERROR'];
      const text = Buffer.from(`${lines.join('\n')}\n`);
      for (const [pattern, options] of [
        ['error', {}],
        ['ERROR', { caseSensitive: true }],
        ['ERROR.*ETIMEDOUT', { regex: true }],
        ['(?i)ünïcödé', { regex: true, caseSensitive: true }],
        ['\\d+', { regex: true }],
        ['^$', { regex: true }],
        ['x*', { regex: true }],
        ['ERROR\\n\\S', { regex: true }],
      ] as [string, SearchOptions][]) {
        const re = RE2JS.compile(
          options.regex ? translatePattern(pattern) : RE2JS.quote(pattern),
          RE2JS.MULTILINE | (options.caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE),
        );
        const matcher = re.matcher(text);
        const expected: number[] = [];
        while (matcher.find()) expected.push(matcher.start());
        assert.deepEqual(offsets(text, pattern, options), expected, pattern);
      }
    });
  });

  describe('patterns that backtrack without end in JavaScript', () => {
    for (const [pattern, text] of [
      ['(a+)+$', `${'a'.repeat(5000)}b`],
      ['(q+)+$x', 'q'.repeat(5000)],
      ['(x|x)*y', 'x'.repeat(5000)],
      ['^(\\w+\\s?)*$', `${'word '.repeat(2000)}!`],
    ]) {
      it(`finds no match for ${pattern} (and ends)`, () => assert.deepEqual(offsets(text, pattern, { regex: true }), []));
    }
  });

  describe('windows', () => {
    it('a match is reported by the window it starts in, with offsets and lines of the whole text', () => {
      const text = Buffer.from('one hit\ntwo hit\nthree hit\n');
      const search = compileSearch('f', 'hit');
      const found = new MatchCollector(100);
      // Two windows split inside line 2: the first accepts up to its cut, the second starts there.
      const cut = text.indexOf('two');
      const first: SearchWindow = { bytes: text.subarray(0, cut + 5), base: 0, acceptFrom: 0, acceptBefore: cut, line: 1, lineStart: 0 };
      const second: SearchWindow = {
        bytes: text.subarray(cut),
        base: cut,
        acceptFrom: 0,
        acceptBefore: text.length - cut + 1,
        line: 2,
        lineStart: cut,
      };
      runAll(searchWindow(search, first, found));
      runAll(searchWindow(search, second, found));
      assert.deepEqual(
        found.matches.map((m) => [m.offset, m.line, m.lineOffset, m.text]),
        [
          [4, 1, 0, 'one hit'],
          [12, 2, 8, 'two hit'],
          [22, 3, 16, 'three hit'],
        ],
      );
    });

    it("a window that accepts from an offset finds the whole text's matches from there, whatever the plan, the case and the offset", () => {
      const text = Buffer.from('Ärger timeout x\nTIMEOUT: ärger id=7f3a ERROR pool\n通过 timeout\nERROR pool id=7f3a timeout\n'.repeat(40));
      const searches: [string, SearchOptions][] = [
        ['timeout', { caseSensitive: true }],
        ['timeout', {}],
        ['ärger', {}],
        ['ERROR.*id=7f3a', { regex: true, caseSensitive: true }],
        ['[a-z]+ id=7f3a', { regex: true }],
      ];
      for (const [pattern, options] of searches) {
        const search = compileSearch('f', pattern, { maxMatches: 1000, ...options });
        const whole = searchBytes(text, search).matches;
        // Every offset of the first lines (mid-line, mid-character, a line's start), then a few far on.
        for (const from of [...Array(140).keys(), 1000, 2001, text.length - 3, text.length]) {
          const found = new MatchCollector(1000);
          runAll(
            searchWindow(search, { bytes: text, base: 0, acceptFrom: from, acceptBefore: text.length + 1, line: 1, lineStart: 0 }, found),
          );
          assert.deepEqual(
            found.matches,
            whole.filter((m) => m.offset >= from),
            `${pattern} ${JSON.stringify(options)} from ${from}`,
          );
        }
      }
    });

    it('the literal scanner goes forward from any offset', () => {
      const bytes = Buffer.from('aXa xa ÄÄ äx');
      const scanner = literalScanner(bytes, ['a', 'ä'], false);
      assert.deepEqual([scanner.find(0), scanner.find(1), scanner.find(3), scanner.find(6), scanner.find(11)], [0, 2, 5, 7, 12]);
      assert.equal(scanner.find(13), -1);
    });
  });
});
