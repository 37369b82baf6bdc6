// UTF-16 files are masked (issue 37 §4): what Windows PowerShell 5's `>` writes (UTF-16 LE with a
// BOM), its big-endian twin, and UTF-16 without a BOM came back through read_file_page and
// search_tool_output {path} with every secret in clear, NUL-interleaved. Here the nine promised shapes
// are placed across pages, text slices and search windows of such files and read through the real
// read tools; the same text as UTF-8 is the control. `TEST_SEED=<n>` replays a failure.
//
// Its size is TOR_PROPERTY_SCALE's (test/unit/helpers/propertyScale.ts). Quick, the default
// (`npm run test:system`): each form's file ends a little past the first search window (1.125 MiB of
// UTF-16), its nine extra values placed in its first 450 Ki characters, searched four times (any run
// of 8, the drawn kind's prefix, one probe of a secret's letters, the UTF-8 control: each search
// starts a search worker, most of a search's time), and the stream takes 8 rounds. Full
// (TOR_PROPERTY_SCALE=full, what `npm test` and CI run): 0.75 Mi characters (1.5 MiB), the extra values
// in the first 700 Ki characters, searched seven times (three prefixes, two probes), 24 rounds.
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { readFilePage } from '../../src/core/files/filePager';
import { FILE_WINDOW_BYTES, searchFile } from '../../src/core/files/fileSearch';
import { SecretStream } from '../../src/core/files/secretStream';
import { maskText, sniffEncoding } from '../../src/core/files/textEncoding';
import { makeRng, seedFromEnv, type Rng } from '../unit/helpers/prng';
import { FULL_PROPERTY_SCALE, PROPERTY_SCALE, propertySize } from '../unit/helpers/propertyScale';
import { ALNUM, BASE64, chars, leak, prefixedShapes } from '../unit/helpers/secrets';
import { useTempDirs } from '../unit/helpers/tempDirs';

const KiB = 1024;
/** A harmless value: it must stay readable. */
const HARMLESS = 'release_build_identifier=Zq7harmless9Kp';

interface Placed {
  text: string;
  /** What must not show, and the prefix that names its kind (shown). */
  secrets: string[];
  prefix: string;
}

const one = (prefix: string, value: string, after = ''): Placed => ({ text: `${prefix}${value}${after}`, secrets: [value], prefix });

/** The nine shapes the README promises first, each value drawn fresh. */
const NINE: Record<string, (rng: Rng) => Placed> = {
  ...prefixedShapes(one, 'ghp', 'githubPat', 'awsKeyId', 'awsSecret', 'npmAuthToken', 'slack', 'bearer'),
  urlPassword: (rng) => one('https://deploy:', chars(rng, ALNUM, 16), '@github.com/o/r.git'),
  pemKey: (rng) => {
    const body = Array.from({ length: 6 }, () => chars(rng, BASE64, 64));
    return {
      text: `-----BEGIN RSA PRIVATE KEY-----\r\n${body.join('\r\n')}\r\n-----END RSA PRIVATE KEY-----`,
      secrets: body,
      prefix: '-----BEGIN',
    };
  },
};

/** Filler of short words (never 8 characters of a run), with Windows line breaks. */
function filler(rng: Rng, length: number): string {
  const words = ['info', 'step', 'done', 'ok', 'retry', 'wait', 'build', 'pass'];
  let out = ' ';
  while (out.length < length) out += rng.chance(0.08) ? '\r\n' : `${rng.pick(words)} ${rng.int(0, 99999)} `;
  return `${out.slice(0, length - 1)} `.slice(-length);
}

/** Text of `length` characters with a value of each shape at each of `at` (character offsets), one after another. */
function layout(rng: Rng, length: number, at: readonly number[]): { text: string; placed: Placed[] } {
  const names = Object.keys(NINE);
  let text = '';
  const placed: Placed[] = [];
  for (const [i, offset] of [...at].sort((a, b) => a - b).entries()) {
    if (offset > text.length) text += filler(rng, offset - text.length);
    const value = NINE[names[i % names.length]](rng);
    placed.push(value);
    text += `${value.text}\r\n`;
  }
  return { text: `${text}${filler(rng, 3000)}\r\n${HARMLESS}\r\n${filler(rng, Math.max(0, length - text.length - 3000))}`, placed };
}

type Form = { name: string; be: boolean; bom: boolean };
const FORMS: Form[] = [
  { name: 'UTF-16 LE with a BOM (PowerShell 5)', be: false, bom: true },
  { name: 'UTF-16 BE with a BOM', be: true, bom: true },
  { name: 'UTF-16 LE without a BOM', be: false, bom: false },
  { name: 'UTF-16 BE without a BOM', be: true, bom: false },
];

function encode(text: string, form: Form): Buffer {
  const le = Buffer.from(`${form.bom ? '\ufeff' : ''}${text}`, 'utf16le');
  return form.be ? le.swap16() : le;
}

/** What a person reads in `shown` (read tools' text of a UTF-16 file): its NULs dropped. */
const readable = (shown: string): string => shown.replace(/\0/g, '');

/** A regex for `literal` as it lies in the file: each character followed (LE) or preceded (BE) by any byte. */
const spread = (literal: string, form: Form | undefined): string =>
  [...literal]
    .map((char) => char.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .map((char) => (form ? (form.be ? `.${char}` : `${char}.`) : char))
    .join('');

describe('UTF-16 files are masked by read_file_page and search_tool_output {path} (issue 37 §4)', function () {
  this.timeout(600_000);
  const seed = seedFromEnv(20260537);
  const dirs = useTempDirs('secret-utf16');
  const totals = { tried: 0, leaked: 0, pages: 0, searches: 0 };
  let workspace: string;
  before(async () => {
    workspace = await fs.realpath(dirs.make());
  });
  after(() => {
    console.log(
      `    utf16: ${totals.tried} secret values tried through ${totals.pages} pages and ${totals.searches} searches, ${totals.leaked} leaked`,
    );
  });

  it('decides the encoding from the first bytes: BOMs, NULs on one side; UTF-8, binary NULs on both sides and short files stay UTF-8', () => {
    assert.equal(sniffEncoding(encode('hello', FORMS[0])), 'utf16le');
    assert.equal(sniffEncoding(encode('hello', FORMS[1])), 'utf16be');
    assert.equal(sniffEncoding(encode('hello world', FORMS[2])), 'utf16le');
    assert.equal(sniffEncoding(encode('hello world', FORMS[3])), 'utf16be');
    assert.equal(sniffEncoding(Buffer.from('plain ASCII\nand ünïcode ✓\n')), 'utf8');
    assert.equal(sniffEncoding(Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0x3e, 0])), 'utf8');
    assert.equal(sniffEncoding(Buffer.alloc(4096)), 'utf8');
    assert.equal(sniffEncoding(Buffer.from('x')), 'utf8');
  });

  for (const form of FORMS) {
    it(`${form.name}: the nine shapes, across pages and search windows, never shown; offsets are the file's`, async () => {
      const rng = makeRng(seed + form.name.length * 31 + (form.be ? 1 : 0));
      const bom = form.bom ? 2 : 0;
      // Character offsets whose value crosses a 4 KiB page, a 64 KiB text slice, the 1 MiB search window.
      const across = (byte: number): number => Math.floor((byte - bom) / 2) - rng.int(1, 40);
      const at = [0, across(4 * KiB), across(12 * KiB), across(64 * KiB), across(256 * KiB), across(FILE_WINDOW_BYTES - 32 * KiB)];
      at.push(across(FILE_WINDOW_BYTES), across(FILE_WINDOW_BYTES + 4 * KiB + 1), across(FILE_WINDOW_BYTES + 96 * KiB));
      for (let i = 0; i < 9; i++) at.push(rng.int(1, propertySize(450, 700)) * KiB);
      const { text, placed } = layout(rng, propertySize((FILE_WINDOW_BYTES + 128 * KiB) / 2, Math.floor((FILE_WINDOW_BYTES * 3) / 4)), at);
      const secrets = placed.flatMap((each) => each.secrets);
      const bytes = encode(text, form);
      const file = path.join(workspace, `utf16-${form.be ? 'be' : 'le'}-${form.bom ? 'bom' : 'nobom'}.txt`);
      const control = path.join(workspace, 'control-utf8.txt');
      await Promise.all([fs.writeFile(file, bytes), fs.writeFile(control, text)]);
      // Positive control: the raw file holds every value (the check can see a leak), and as UTF-8 it is masked.
      assert.equal(leak(readable(bytes.toString('latin1')), secrets) !== undefined, true);
      const leaks: string[] = [];
      const check = (shown: string, values: readonly string[], how: string): void => {
        totals.tried += values.length;
        const found = leak(readable(shown), values);
        if (found !== undefined) {
          totals.leaked++;
          leaks.push(`${how}: "${found}"`);
        }
      };

      // read_file_page: the whole file page by page, and pages at odd offsets around each value.
      const decoder = new TextDecoder();
      let shownMasked = 0;
      let all = '';
      let offset = 0;
      for (let more = true; more; totals.pages++) {
        const page = await readFilePage(file, { byteOffset: offset });
        assert.equal(page.totalBytes, bytes.length);
        assert.equal(page.startByte, offset);
        const raw = decoder.decode(bytes.subarray(page.startByte, page.endByte));
        assert.equal(page.text.length, raw.length, `page @${offset}: same length`);
        for (let i = 0; i < raw.length; i++) {
          if (page.text[i] !== raw[i])
            assert.ok(page.text[i] === '*' && /[!-~]/.test(raw[i]), `page @${offset}: only '*' replaces a character (at ${i})`);
        }
        shownMasked += page.masked;
        all += page.text;
        offset = page.nextByteOffset;
        more = page.hasMore;
      }
      assert.equal(offset, bytes.length);
      check(all, secrets, 'read_file_page, page by page');
      assert.ok(shownMasked >= placed.length, `${shownMasked} masked for ${placed.length} values`);
      assert.ok(readable(all).includes(HARMLESS), 'the harmless value stays readable');
      assert.ok(readable(all).includes('ghp_************************************'), 'the kind prefix stays, the value is stars');
      for (const value of placed) {
        const where = bytes.indexOf(encode(value.text, { ...form, bom: false }));
        for (const start of [where - rng.int(1, 2000) * 2 - 1, where + 1, where + rng.int(0, value.text.length) * 2 + 1]) {
          const page = await readFilePage(file, { byteOffset: Math.max(1, start), maxBytes: rng.int(64, 4096) });
          totals.pages++;
          check(page.text, value.secrets, `read_file_page @${start}`);
        }
      }

      // search_tool_output {path}: the kind prefix (finds the line, shows it masked), any run of 8, the value's own letters.
      const probes: [string, boolean][] = [[`(?:${form.be ? '\\x00' : ''}[A-Za-z0-9+/=_.$:@-]${form.be ? '' : '\\x00'}){8,}`, true]];
      // Three kinds' prefixes a search (each of these costs re2js most of a second over 1.5 MiB of UTF-16).
      // Quick: only the drawn kind's prefix.
      for (const prefix of FULL_PROPERTY_SCALE ? ['Bearer ', '-----BEGIN', rng.pick(placed).prefix] : [rng.pick(placed).prefix])
        probes.push([spread(prefix, form), true]);
      for (const [index, [pattern, regex]] of probes.entries()) {
        const found = await searchFile(file, pattern, { regex, maxMatches: 1000 });
        totals.searches++;
        assert.equal(found.totalBytes, bytes.length);
        if (index > 0) assert.ok(found.matches.length > 0 && (found.masked ?? 0) > 0, `search ${pattern} finds the lines, masked`);
        check(found.matches.map((match) => match.text).join('\n'), secrets, `search ${pattern}`);
      }
      for (const secret of FULL_PROPERTY_SCALE ? [rng.pick(secrets), rng.pick(secrets)] : [rng.pick(secrets)]) {
        const found = await searchFile(file, spread(secret.slice(0, 8), form), { regex: true, maxMatches: 1 });
        totals.searches++;
        totals.tried++;
        if (found.matches.length > 0) {
          totals.leaked++;
          leaks.push(`search finds ${secret.slice(0, 8)}`);
        }
      }
      assert.deepEqual(leaks, [], `seed ${seed} (${PROPERTY_SCALE} scale) ${form.name}`);

      // The control: the same text as UTF-8 is masked by the same tools.
      const controlPage = await readFilePage(control, { byteOffset: 0 });
      assert.ok(controlPage.masked > 0 && leak(controlPage.text, secrets) === undefined);
      const controlSearch = await searchFile(control, '[A-Za-z0-9+/=_.$:@-]{8,}', { regex: true, maxMatches: 1000 });
      assert.ok(
        (controlSearch.masked ?? 0) > 0 && leak(controlSearch.matches.map((match) => match.text).join('\n'), secrets) === undefined,
      );
    });
  }

  it('a stream masks UTF-16 exactly as one pass over the whole file, whatever the sizes of its reads (odd ones too)', () => {
    const rng = makeRng(seed + 7);
    for (let round = 0, rounds = propertySize(8, 24); round < rounds; round++) {
      const form = FORMS[round % FORMS.length];
      const at = Array.from({ length: 14 }, () => rng.int(0, 100 * KiB));
      const { text, placed } = layout(rng, 110 * KiB, at);
      const raw = encode(text, form);
      const whole = Buffer.from(raw);
      const count = maskText(whole, false, sniffEncoding(whole), 0).length;
      const stream = new SecretStream();
      const parts: Buffer[] = [];
      for (let from = 0; from < raw.length;) {
        const step = rng.pick([1, 3, 7, 4095, 4097, 16 * KiB - 1, 32 * KiB + 1, 64 * KiB, rng.int(1, 100 * KiB)]);
        parts.push(stream.push(raw.subarray(from, from + step)));
        from += step;
      }
      parts.push(stream.end());
      const streamed = Buffer.concat(parts);
      const context = `seed ${seed} (${PROPERTY_SCALE} scale) round ${round} (${form.name})`;
      assert.equal(streamed.length, raw.length, context);
      assert.ok(
        streamed.equals(whole),
        `${context}: the stream masked differently at byte ${streamed.findIndex((b, i) => b !== whole[i])}`,
      );
      assert.equal(stream.masked, count, `${context}: count`);
      const secrets = placed.flatMap((each) => each.secrets);
      totals.tried += secrets.length;
      const found = leak(readable(streamed.toString('latin1')), secrets);
      if (found !== undefined) totals.leaked++;
      assert.equal(found, undefined, `${context}: the stream shows "${found}"`);
    }
  });
});
