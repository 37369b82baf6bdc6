// Masking as a property (issue 28): for every secret shape, wherever it lies in a file (its start,
// its end, across a 4 KiB page, a 64 KiB text slice, the hook's 1 MiB read, a search window (FILE_WINDOW_BYTES),
// back to back with another secret, in a notable line clipped at any column), no run of 8 or more
// of its characters reaches the model in clear, by any way a file's text leaves the store:
// read_file_page, search_tool_output {path} with any pattern, the Claude Code hook's context.
// Placements are drawn from a seeded PRNG; `TEST_SEED=<n>` replays a failure.
//
// Its size is TOR_PROPERTY_SCALE's (test/unit/helpers/propertyScale.ts). Quick, the default (`npm run test:system`):
// each shape's file is one search window and a quarter (1.25 MiB) with the edges that lie in it (the
// file's start, a page, a text slice, the hook's 1 MiB read, a search window), searched twice (any run
// of 8, and a secret's own letters: each search starts a search worker, most of a search's time), and
// the stream takes 10 rounds. Full (TOR_PROPERTY_SCALE=full, what `npm test` and CI run): each file is
// 4 MiB, with the same edges again at the second and third search windows, searched with five
// patterns and two probes, and the stream takes 40 rounds.
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { readFilePage } from '../../src/core/files/filePager';
import { FILE_WINDOW_BYTES, searchFile } from '../../src/core/files/fileSearch';
import { maskSecrets } from '../../src/core/files/secretShapes';
import { SecretStream } from '../../src/core/files/secretStream';
import { savedOutputContext } from '../../src/mcp/hook';
import { makeRng, seedFromEnv, type Rng } from '../unit/helpers/prng';
import { FULL_PROPERTY_SCALE, PROPERTY_SCALE, propertySize } from '../unit/helpers/propertyScale';
import { ALNUM, BASE64, chars, leak, prefixedShapes, URLSAFE } from '../unit/helpers/secrets';
import { useClaudeResults } from '../unit/helpers/readable';
import { useTempDirs } from '../unit/helpers/tempDirs';

const KiB = 1024;
const MiB = 1024 * KiB;

/** A secret as written in a file: `text`, and the parts of it that must never show (`secrets`). */
interface Placed {
  text: string;
  secrets: string[];
}

/** Every shape secretShapes.ts knows, with a value drawn fresh each time. */
const SHAPES: Record<string, (rng: Rng) => Placed> = {
  ...prefixedShapes(one, 'ghp', 'githubPat', 'awsKeyId', 'awsSecret', 'npmAuthToken'),
  npmToken: (rng) => one('npm_', chars(rng, ALNUM, 36)),
  ...prefixedShapes(one, 'slack', 'bearer'),
  proxyBasic: (rng) => one('proxy_authorization: Basic ', chars(rng, BASE64, 32)),
  google: (rng) => one('AIza', chars(rng, URLSAFE, 35)),
  stripe: (rng) => one('sk_live_', chars(rng, ALNUM, 24)),
  anthropic: (rng) => one('sk-ant-', `api03-${chars(rng, URLSAFE, 80)}`),
  openai: (rng) => one('sk-proj-', chars(rng, URLSAFE, 48)),
  jwt: (rng) => one(`eyJhbGciOiJIUzI1NiJ9.eyJ${chars(rng, URLSAFE, 40)}.`, chars(rng, URLSAFE, 43)),
  urlPassword: (rng) =>
    one('https://deploy:', `${chars(rng, ALNUM, 10)}:${chars(rng, ALNUM, 6)}$${chars(rng, ALNUM, 8)}@github.com/o/r.git`, '@'),
  openaiLegacy: (rng) => one('sk-', `${chars(rng, ALNUM, 20)}T3BlbkFJ${chars(rng, ALNUM, 20)}`),
  gitlab: (rng) => one('glpat-', chars(rng, URLSAFE, 20)),
  slackApp: (rng) => one('xapp-', `1-A${chars(rng, ALNUM, 10)}-${chars(rng, '0123456789', 13)}-${chars(rng, ALNUM, 64)}`),
  kubeKey: (rng) => {
    // A Kubernetes Secret's tls.key: the PEM block in base64 on one line; the encoded BEGIN line's "PRIVATE K" stays.
    const pem = `-----BEGIN RSA PRIVATE KEY-----\n${Array.from({ length: rng.int(10, 60) }, () => chars(rng, BASE64, 64)).join('\n')}\n-----END RSA PRIVATE KEY-----\n`;
    const encoded = Buffer.from(pem).toString('base64');
    const kept = encoded.indexOf('UFJJVkFURSBL') + 12;
    // The secret is what encodes the body (the encoded END line repeats the BEGIN line's letters).
    return { text: `tls.key: ${encoded}`, secrets: [encoded.slice(kept, Math.floor(pem.indexOf('\n-----END') / 3) * 4)] };
  },
  rsaKey: (rng) => key(rng, 'RSA PRIVATE KEY', 25),
  pkcs8Key: (rng) => key(rng, 'PRIVATE KEY', 4),
  opensshKey: (rng) => key(rng, 'OPENSSH PRIVATE KEY', 7),
};

/** `prefix` then `value`; what must not show is the value up to `until` (a URL's host stays). */
function one(prefix: string, value: string, until?: string): Placed {
  const secret = until === undefined ? value : value.slice(0, value.lastIndexOf(until));
  return { text: `${prefix}${value}`, secrets: [secret] };
}

function key(rng: Rng, label: string, lines: number): Placed {
  const body = Array.from({ length: lines }, () => chars(rng, BASE64, 64));
  return { text: `-----BEGIN ${label}-----\n${body.join('\n')}\n-----END ${label}-----`, secrets: body };
}

/**
 * Filler: short lowercase words and numbers, never 8 characters of one run, so no secret's 8-gram
 * can occur in it. It begins and ends with a space or a line break: a value glued to a word
 * (`abc1ghp_…`) is not a token by design (secretShapes.ts), and is not what this test places.
 */
function filler(rng: Rng, bytes: number): string {
  const words = ['info', 'step', 'done', 'ok', 'retry', 'wait', 'build', 'pass'];
  let out = ' ';
  while (out.length < bytes) out += rng.chance(0.08) ? '\n' : `${rng.pick(words)} ${rng.int(0, 99999)} `;
  return `${out.slice(0, bytes - 1)}${rng.pick([' ', '\n'])}`.slice(-bytes);
}

/** A file of filler with secrets at the given offsets (each value's first byte at its offset, or later when they would overlap). */
function layout(
  rng: Rng,
  size: number,
  at: readonly number[],
  make: () => Placed,
): { text: string; placed: { offset: number; value: Placed }[] } {
  let text = '';
  const placed: { offset: number; value: Placed }[] = [];
  for (const offset of [...at].sort((a, b) => a - b)) {
    if (offset > text.length) text += filler(rng, offset - text.length);
    const value = make();
    placed.push({ offset: text.length, value });
    text += value.text;
  }
  if (text.length < size) text += filler(rng, size - text.length);
  return { text, placed };
}

describe('secret masking as a property: no 8 characters of a secret reach the model', function () {
  // A file of several MiB per shape is searched several times and paged around each placement; on a busy
  // 2-core machine that is seconds per shape, not milliseconds.
  this.timeout(600_000);
  const seed = seedFromEnv(20261205);
  const dirs = useTempDirs('secret-masking');
  const claude = useClaudeResults(() => dirs.make());
  let workspace: string;
  before(async () => {
    workspace = await fs.realpath(dirs.make());
  });

  it('a stream masks exactly as one pass over the whole text, whatever the sizes of its reads', () => {
    const rng = makeRng(seed);
    const names = Object.keys(SHAPES);
    for (let round = 0, rounds = propertySize(10, 40); round < rounds; round++) {
      const at = Array.from({ length: 12 }, () => rng.int(0, 200 * KiB));
      // Back to back: a second value right after some of the first ones.
      const { text } = layout(rng, 220 * KiB, at, () => {
        const first = SHAPES[rng.pick(names)](rng);
        if (!rng.chance(0.4)) return first;
        const second = SHAPES[rng.pick(names)](rng);
        return {
          text: `${first.text}${rng.pick(['', '\n', ' ', '\n# next\n'])}${second.text}`,
          secrets: [...first.secrets, ...second.secrets],
        };
      });
      const whole = Buffer.from(text);
      const count = maskSecrets(whole).length;
      const stream = new SecretStream();
      const parts: Buffer[] = [];
      const raw = Buffer.from(text);
      for (let at2 = 0; at2 < raw.length;) {
        const step = rng.pick([1, 7, 4 * KiB, 16 * KiB - 1, 16 * KiB + 1, 64 * KiB, rng.int(1, 100 * KiB)]);
        parts.push(stream.push(raw.subarray(at2, at2 + step)));
        at2 += step;
      }
      parts.push(stream.end());
      const streamed = Buffer.concat(parts);
      assert.equal(streamed.length, whole.length, `seed ${seed} (${PROPERTY_SCALE} scale) round ${round}`);
      assert.ok(
        streamed.equals(whole),
        `seed ${seed} (${PROPERTY_SCALE} scale) round ${round}: the stream masked differently at byte ${streamed.findIndex((b, i) => b !== whole[i])}`,
      );
      assert.equal(stream.masked, count, `seed ${seed} (${PROPERTY_SCALE} scale) round ${round}: count`);
    }
  });

  for (const name of Object.keys(SHAPES)) {
    it(`${name}: read_file_page, search_tool_output {path} and the hook never show it`, async () => {
      const rng = makeRng(seed + name.length * 7919 + name.charCodeAt(0));
      const make = SHAPES[name];
      const sample = make(rng).text.length;
      // Each placement starts the value a random part of its length before an edge, so the edge cuts it.
      const across = (edge: number): number => edge - rng.int(1, Math.max(1, sample - 1));
      const edges = [
        0,
        across(4 * KiB),
        across(rng.int(2, 15) * 4 * KiB),
        across(64 * KiB),
        across(rng.int(2, 15) * 64 * KiB),
        across(MiB),
        across(FILE_WINDOW_BYTES - 16 * KiB),
        across(FILE_WINDOW_BYTES),
        across(FILE_WINDOW_BYTES + rng.int(1, 3) * 64 * KiB),
        across(2 * FILE_WINDOW_BYTES),
        across(3 * FILE_WINDOW_BYTES - 16 * KiB),
      ];
      // Quick: the edges up to the first search window's and a little past it; full: all of them.
      const size = propertySize(FILE_WINDOW_BYTES + 256 * KiB, Math.max(4 * MiB, 3 * FILE_WINDOW_BYTES + MiB));
      const within = edges.filter((edge) => edge <= size - 64 * KiB);
      const { text, placed } = layout(rng, size, within, () => {
        // Every third value has a second one right after it.
        if (rng.chance(0.67)) return make(rng);
        const [first, second] = [make(rng), SHAPES[rng.pick(Object.keys(SHAPES))](rng)];
        return {
          text: `${first.text}${rng.pick(['', '\n', '  ', '\n# next\n'])}${second.text}`,
          secrets: [...first.secrets, ...second.secrets],
        };
      });
      // And one more at the very end of the file.
      const last = make(rng);
      const file = path.join(workspace, `${name}.log`);
      const content = `${text}\n${last.text}`;
      await fs.writeFile(file, content);
      const all = [...placed.flatMap((each) => each.value.secrets), ...last.secrets];
      const check = (shown: string, how: string): void => {
        const found = leak(shown, all);
        assert.equal(found, undefined, `seed ${seed} (${PROPERTY_SCALE} scale) ${name}: ${how} shows "${found}" in clear`);
      };

      // read_file_page: pages of up to 4096 bytes that start before, inside and after each value.
      const total = Buffer.byteLength(content);
      for (const { offset, value } of [...placed, { offset: total - last.text.length, value: last }]) {
        const starts = [offset - 4096 + rng.int(1, 4095), offset + rng.int(0, value.text.length - 1), offset - rng.int(0, 64)];
        for (const start of starts.map((each) => Math.min(total, Math.max(0, each)))) {
          check(
            (await readFilePage(file, { byteOffset: start, maxBytes: rng.pick([4096, 4096, rng.int(1, 4096)]) })).text,
            `read_file_page @${start}`,
          );
        }
      }

      // search_tool_output {path}: patterns for the value's kind, its letters, anything long, its own letters.
      const patterns: [string, boolean][] = [
        [placed[0].value.text.slice(0, 4), false],
        ['[A-Za-z0-9+/=_.$:@-]{8,}', true],
        ['\\*{4,}', true],
        [all[0].slice(0, 8), false],
        [all[all.length - 1].slice(-8), false],
      ];
      // Quick: the pattern that matches any run of 8, and one probe below; full: every pattern, two probes.
      for (const [pattern, regex] of propertySize(patterns.slice(1, 2), patterns)) {
        const found = await searchFile(file, pattern, { regex, maxMatches: 1000 });
        check(found.matches.map((match) => JSON.stringify(match)).join('\n'), `search ${pattern}`);
      }
      for (const secret of FULL_PROPERTY_SCALE ? [rng.pick(all), rng.pick(all)] : [rng.pick(all)]) {
        const probe = await searchFile(file, secret.slice(rng.int(0, secret.length - 8)).slice(0, 8), { maxMatches: 1 });
        assert.equal(probe.matches.length, 0, `seed ${seed} (${PROPERTY_SCALE} scale) ${name}: search finds the secret's letters`);
      }

      // The hook's context, over the same file saved as Claude Code saves one.
      const saved = path.join(claude.results(), `${name}.txt`);
      await fs.copyFile(file, saved);
      const context = await savedOutputContext({
        tool_name: 'Bash',
        tool_response: { persistedOutputPath: saved, persistedOutputSize: total },
      });
      assert.match(
        context ?? '',
        /\[the (?:file's )?last \d+ bytes/,
        `seed ${seed} (${PROPERTY_SCALE} scale) ${name}: the hook shows the tail`,
      );
      check(context ?? '', 'the hook');
      await Promise.all([fs.rm(file), fs.rm(saved)]);
    });
  }

  it('the hook: a secret in a notable line, at any column the line is clipped through, and a key before the tail', async () => {
    const rng = makeRng(seed + 1);
    const names = Object.keys(SHAPES);
    for (let column = 0; column < 260; column += rng.int(1, 6)) {
      const value = SHAPES[rng.pick(names)](rng);
      const notable = `ERROR: request failed ${'x'.repeat(column)}${value.text} while syncing\n`;
      const tailKey = SHAPES.rsaKey(rng);
      const content = `${filler(rng, 3 * KiB)}\n${notable}${filler(rng, 2 * KiB)}\n${tailKey.text}\n`;
      const saved = path.join(claude.results(), `column-${column}.txt`);
      await fs.writeFile(saved, content);
      const context = await savedOutputContext({ tool_name: 'Bash', tool_response: { persistedOutputPath: saved } });
      assert.ok(
        context?.includes('ERROR: request failed'),
        `seed ${seed} (${PROPERTY_SCALE} scale) column ${column}: the notable line is shown`,
      );
      const found = leak(context ?? '', [...value.secrets, ...tailKey.secrets]);
      assert.equal(found, undefined, `seed ${seed} (${PROPERTY_SCALE} scale) column ${column}: the hook shows "${found}" in clear`);
      await fs.rm(saved);
    }
  });
});
