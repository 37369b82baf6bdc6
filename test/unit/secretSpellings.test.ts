// Other spellings of secrets (issue 37 §5), as a property: key names inside an escaped JSON string and
// in a Ruby hash, a URL password in a JSON-escaped URL, a Bearer token holding '$', base64 private keys
// (a Kubernetes Secret's tls.key, kubeconfig's client-key-data, wrapped `base64` output), legacy OpenAI
// keys, GitLab and Slack app-level tokens. Thousands of random values, each in random text, masked as
// UTF-8, as UTF-16 and through a stream cut at random; every byte of each value must come back '*',
// its kind prefix and the text around it unchanged. `TEST_SEED=<n>` replays a failure.
import assert from 'node:assert/strict';
import { maskSecrets } from '../../src/core/files/secretShapes';
import { SecretStream } from '../../src/core/files/secretStream';
import { maskText } from '../../src/core/files/textEncoding';
import { makeRng, seedFromEnv, type Rng } from './helpers/prng';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const BASE64 = `${ALNUM}+/`;
const TOKEN = `${ALNUM}._~+/=-`;

/** A value in its spelling: `before` (its kind prefix and the text that leads to it), `value` (masked whole), `after`. */
interface Spelled {
  before: string;
  value: string;
  after: string;
}

const chars = (rng: Rng, set: string, n: number): string => Array.from({ length: n }, () => set[rng.int(0, set.length - 1)]).join('');
/** '/' as PHP's json_encode writes it, half the time. */
const slashes = (rng: Rng, value: string): string => (rng.chance(0.5) ? value.replace(/\//g, '\\/') : value);
/** A quote inside a JSON string, inside one more now and then. */
const quote = (rng: Rng): string => rng.pick(['\\"', '\\"', '\\\\\\"']);
const pad = (rng: Rng): string => rng.pick(['', ' ', '  ', '\t']);

/** A PEM block in base64 (at a random alignment after some text), on one line or wrapped as `base64` and `openssl base64` wrap. */
function base64Key(rng: Rng): { encoded: string; keyFrom: number; wrapped: boolean } {
  const label = rng.pick(['RSA ', 'EC ', '', 'OPENSSH ', 'ENCRYPTED ', 'DSA ']);
  const lead = rng.pick(['', 'x', 'Bag Attributes\n', 'key:\n']);
  const body = Array.from({ length: rng.int(1, 100) }, () => chars(rng, BASE64, 64)).join('\n');
  const pem = `${lead}-----BEGIN ${label}PRIVATE KEY-----\n${body}\n-----END ${label}PRIVATE KEY-----\n`;
  const flat = Buffer.from(pem).toString('base64');
  // Masked from the base64 group after the one that ends the encoded "PRIVATE K": the rest encodes the key.
  const keyFrom = /^.*?(?:UFJJVkFURSBL|UklWQVRFIEtF|SVZBVEUgS0VZ)/.exec(flat)?.[0].length ?? 0;
  const width = rng.pick([0, 0, 64, 76]);
  if (width === 0) return { encoded: flat, keyFrom, wrapped: false };
  const lines = flat.match(new RegExp(`.{1,${width}}`, 'g')) ?? [];
  return { encoded: lines.join('\n'), keyFrom: keyFrom + Math.floor(keyFrom / width), wrapped: true };
}

const SPELLINGS: Record<string, (rng: Rng) => Spelled> = {
  authorizationInEscapedJson: (rng) => {
    const q = quote(rng);
    const name = rng.pick(['Authorization', 'authorization', 'AUTHORIZATION', 'Proxy-Authorization']);
    const scheme = rng.pick(['Bearer', 'Basic', 'Token', 'bearer']);
    return {
      before: `{${q}headers${q}:{${q}${name}${q}:${pad(rng)}${q}${scheme} `,
      value: slashes(rng, `${chars(rng, ALNUM, 1)}${chars(rng, TOKEN, rng.int(7, 300))}`),
      after: `${q}}}`,
    };
  },
  awsSecretInEscapedJson: (rng) => {
    const q = quote(rng);
    const name = rng.pick(['aws_secret_access_key', 'AWS_SECRET_ACCESS_KEY', 'SecretAccessKey', 'secretAccessKey']);
    return { before: `{${q}${name}${q}:${pad(rng)}${q}`, value: slashes(rng, chars(rng, BASE64, 40)), after: `${q}}` };
  },
  npmInEscapedJson: (rng) => {
    const q = quote(rng);
    const name = rng.pick(['_authToken', '_auth', '_password', 'npmAuthToken', 'npmAuthIdent']);
    const value = `${chars(rng, ALNUM, 1)}${chars(rng, `${ALNUM}._~+=:$-`, rng.int(5, 200))}`;
    return { before: `{${q}//registry.example.com/:${name}${q}:${pad(rng)}${q}`, value, after: `${q}}` };
  },
  rubyHash: (rng) => {
    const [open, close] = rng.pick([
      ['"', '"'],
      ["'", "'"],
    ]);
    const arrow = `${pad(rng)}=>${pad(rng)}`;
    return rng.pick([
      () => ({
        before: `{ ${open}Authorization${close}${arrow}${open}${rng.pick(['Bearer', 'Token', 'Basic'])} `,
        value: chars(rng, TOKEN, rng.int(8, 200)),
        after: `${close} }`,
      }),
      () => ({ before: `{ :aws_secret_access_key${arrow}${open}`, value: chars(rng, BASE64, 40), after: `${close} }` }),
      () => ({ before: `{ ${open}_authToken${close}${arrow}${open}`, value: chars(rng, ALNUM, rng.int(6, 80)), after: `${close} }` }),
    ])();
  },
  urlInEscapedJson: (rng) => {
    const slash = rng.pick(['\\/', '\\/', '\\\\\\/']);
    const q = quote(rng);
    const scheme = rng.pick(['https', 'postgres', 'redis', 'git+ssh']);
    const user = chars(rng, ALNUM, rng.int(0, 12));
    const value = chars(rng, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~!$&'()*+,;=:%-", rng.int(1, 60));
    return { before: `{${q}url${q}:${q}${scheme}:${slash}${slash}${user}:`, value, after: `@db.example.com${slash}main${q}}` };
  },
  bearerWithDollar: (rng) => {
    const value = `${chars(rng, ALNUM, rng.int(1, 20))}$${chars(rng, `${TOKEN}$`, rng.int(7, 100))}`;
    return {
      before: rng.pick(['Authorization: Bearer ', 'authorization="Token ', 'HTTP_AUTHORIZATION=Basic ']),
      value,
      after: rng.pick(['\n', '" ', ' next']),
    };
  },
  kubernetesKey: (rng) => {
    const { encoded, keyFrom, wrapped } = base64Key(rng);
    // Wrapped lines come from a command's output; a Secret, a kubeconfig and JSON hold one line.
    const shell = ['$ base64 key.pem\n', '\n$ echo done\n'];
    const [before, after] = wrapped
      ? shell
      : rng.pick([
          ['  tls.key: ', '\n  tls.crt: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUQ=\nkind: Secret\n'],
          ['    client-key-data: ', '\n    token: abc\n'],
          ['{"data":{"ssh-privatekey":"', '"}}'],
          shell,
        ]);
    return { before: `${before}${encoded.slice(0, keyFrom)}`, value: encoded.slice(keyFrom), after };
  },
  openaiLegacy: (rng) => ({
    before: `${rng.pick(['OPENAI_API_KEY=', 'key: "', ' '])}sk-`,
    value: `${chars(rng, ALNUM, 20)}T3BlbkFJ${chars(rng, ALNUM, 20)}`,
    after: rng.pick(['\n', '" ', ' ok']),
  }),
  gitlab: (rng) => ({
    before: `${rng.pick(['GITLAB_TOKEN=', 'token: ', 'PRIVATE-TOKEN: '])}${rng.pick(['glpat', 'gldt', 'glrt', 'glcbt', 'glptt', 'glft', 'glimt', 'glagent', 'glsoat', 'gloas', 'glffct'])}-`,
    value: chars(rng, `${ALNUM}_-`, rng.int(20, 80)),
    after: rng.pick(['\n', ' ', '"']),
  }),
  slackApp: (rng) => ({
    before: `${rng.pick(['SLACK_APP_TOKEN=', 'appToken: "', ''])}xapp-`,
    value: `1-A${chars(rng, ALNUM.slice(0, 36), 10)}-${chars(rng, '0123456789', 13)}-${chars(rng, '0123456789abcdef', 64)}`,
    after: rng.pick(['\n', '" ', ' ok']),
  }),
};

/** Look-alikes in the same spellings: nothing in them may change. */
const HARMLESS = [
  '{\\"headers\\":{\\"Authorization\\":\\"Bearer ${TOKEN}\\"}}',
  '{ "Authorization" => "Bearer $GITHUB_TOKEN" }',
  '{\\"url\\":\\"https:\\/\\/example.com\\/docs\\/x?a=b\\"} mail me@example.com',
  `    client-certificate-data: ${Buffer.from('-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJRTES\n-----END CERTIFICATE-----\n').toString('base64')}\n`,
  'sk-abcdefghij-not-a-key glpat-short xapp-1 desk-top-T3BlbkFJ',
];

/** Printable characters of `value` that `shown` does not show as '*' (0 when masked). */
const clear = (shown: string, value: string): number => [...value].filter((char, i) => /[!-~]/.test(char) && shown[i] !== '*').length;

describe('secret spellings as a property: escaped JSON, Ruby hashes, base64 keys, more token kinds (issue 37 §5)', function () {
  this.timeout(300_000);
  const seed = seedFromEnv(20260538);
  const totals = { tried: 0, leaked: 0, control: 0 };
  after(() => {
    console.log(
      `    spellings: ${totals.tried} values tried (UTF-8, UTF-16, streamed), ${totals.leaked} leaked; unmasked control: ${totals.control} of them seen in clear`,
    );
  });

  for (const name of Object.keys(SPELLINGS)) {
    it(`${name}: 400 random values, each masked whole as UTF-8 and as UTF-16, its prefix and the text around it unchanged`, () => {
      const rng = makeRng(seed + name.length * 7919 + name.charCodeAt(1));
      const leaks: string[] = [];
      let uncounted = 0;
      for (let round = 0; round < 400; round++) {
        const { before, value, after } = SPELLINGS[name](rng);
        const lead = rng.pick(['', 'log: ', 'line one\n', '# config\r\n']);
        const text = `${lead}${before}${value}${after}`;
        const at = lead.length + before.length;
        // Control: unmasked, the check sees the value.
        if (clear(text.slice(at), value) > 0) totals.control++;
        const utf8 = Buffer.from(text);
        const count = maskSecrets(utf8).length;
        const utf16 = Buffer.from(text, 'utf16le');
        maskText(utf16, false, 'utf16le', 0);
        for (const [how, shown] of [
          ['UTF-8', utf8.toString()],
          ['UTF-16', utf16.toString('utf16le')],
        ]) {
          totals.tried++;
          if (clear(shown.slice(at), value) > 0) {
            totals.leaked++;
            leaks.push(`${how} ${JSON.stringify(text.slice(0, 200))} -> ${JSON.stringify(shown.slice(0, 200))}`);
          }
          assert.equal(shown.slice(0, at), text.slice(0, at), `seed ${seed} ${name} ${how}: the prefix and the text before stay`);
          assert.equal(shown.slice(at + value.length), after, `seed ${seed} ${name} ${how}: the text after stays`);
        }
        if (count < 1) uncounted++;
      }
      assert.deepEqual(leaks.slice(0, 3), [], `seed ${seed} ${name}: ${leaks.length} leaked`);
      assert.equal(uncounted, 0, `seed ${seed} ${name}: values masked but not counted`);
    });
  }

  it('look-alikes in these spellings stay readable (a variable, a certificate, a URL without a password, short prefixes)', () => {
    for (const text of HARMLESS) {
      for (const encoding of ['utf8', 'utf16le'] as const) {
        const bytes = Buffer.from(text, encoding);
        assert.equal(maskText(bytes, false, encoding, 0).length, 0, `${encoding}: ${text}`);
        assert.equal(bytes.toString(encoding), text);
      }
    }
  });

  it('all spellings back to back, streamed at random cuts, mask exactly as one pass (base64 keys up to 9 KB: the guard holds)', () => {
    const rng = makeRng(seed + 3);
    const names = Object.keys(SPELLINGS);
    for (let round = 0; round < 12; round++) {
      const values: { at: number; value: string }[] = [];
      let text = '';
      while (text.length < 200_000) {
        const { before, value, after } = SPELLINGS[rng.pick(names)](rng);
        text += `${rng.pick(['', '\n', ' '])}${before}`;
        values.push({ at: Buffer.byteLength(text), value });
        text += `${value}${after}`;
      }
      const raw = Buffer.from(text);
      const whole = Buffer.from(raw);
      const count = maskSecrets(whole).length;
      const stream = new SecretStream();
      const parts: Buffer[] = [];
      for (let from = 0; from < raw.length;) {
        const step = rng.pick([1, 7, 4097, 16 * 1024 - 1, 16 * 1024 + 1, rng.int(1, 64 * 1024)]);
        parts.push(stream.push(raw.subarray(from, from + step)));
        from += step;
      }
      parts.push(stream.end());
      const streamed = Buffer.concat(parts);
      assert.ok(
        streamed.equals(whole),
        `seed ${seed} round ${round}: the stream masked differently at byte ${streamed.findIndex((b, i) => b !== whole[i])}`,
      );
      assert.equal(stream.masked, count, `seed ${seed} round ${round}: count`);
      const shown = streamed.toString('latin1');
      for (const { at, value } of values) {
        totals.tried++;
        if (clear(shown.slice(at), value) > 0) totals.leaked++;
      }
      assert.equal(totals.leaked, 0, `seed ${seed} round ${round}: a value streamed in clear`);
    }
  });
});
