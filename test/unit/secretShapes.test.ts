// The secret shapes read_file_page and search_tool_output mask (src/core/files/secretShapes.ts):
// each shape, its look-alikes that stay, and the byte-for-byte promise (offsets unchanged).
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { maskSecrets } from '../../src/core/files/secretShapes';

/** `text` masked, and how many values. */
function mask(text: string, inside: boolean | 'unknown' = false): { text: string; count: number } {
  const bytes = Buffer.from(text);
  const count = maskSecrets(bytes, inside).length;
  assert.equal(bytes.length, Buffer.byteLength(text), 'same length');
  return { text: bytes.toString(), count };
}

const stars = (n: number): string => '*'.repeat(n);

const PEM_BODY = 'MIIEpAIBAAKCAQEA0123456789abcdefghijklmnopqrstuvwxyz0123456789ABCDEF';
/** A PEM block in base64, as a Kubernetes Secret or a kubeconfig holds it. */
const b64Key = (label: string, body = PEM_BODY): string =>
  Buffer.from(`-----BEGIN ${label}-----\n${body}\n-----END ${label}-----\n`).toString('base64');
/** b64Key masked: the base64 up to the encoded "PRIVATE KEY" (at its alignment) stays, the rest is stars. */
const b64Kept = (label: string): string => {
  const key = b64Key(label);
  const visible = /^.*?(?:UFJJVkFURSBL|UklWQVRFIEtF|SVZBVEUgS0VZ)/.exec(key)?.[0].length ?? 0;
  return `${key.slice(0, visible)}${stars(key.length - visible)}`;
};

describe('secret shapes: what is masked', () => {
  const alnum36 = 'Ab3dE5gH7jK9mN1pQ3sT5vW7yZ9bC2dF4hJ6';
  const shapes: [name: string, text: string, masked: string][] = [
    ['GitHub classic token', `token: ghp_${alnum36}\n`, `token: ghp_${stars(36)}\n`],
    ['GitHub OAuth token (gh hosts.yml)', `    oauth_token: gho_${alnum36}\n`, `    oauth_token: gho_${stars(36)}\n`],
    ['GitHub server-to-server token', `x-access-token:ghs_${alnum36}`, `x-access-token:ghs_${stars(36)}`],
    ['GitHub fine-grained PAT', `GH=github_pat_11ABCDEFG0_${alnum36}!`, `GH=github_pat_${stars(47)}!`],
    ['AWS access key ID', 'aws_access_key_id = AKIAIOSFODNN7EXAMPLE\n', `aws_access_key_id = AKIA${stars(16)}\n`],
    ['AWS temporary key ID', '"AccessKeyId": "ASIAJEXAMPLEXEG2JICE"', `"AccessKeyId": "ASIA${stars(16)}"`],
    ['AWS secret access key', 'aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n', `aws_secret_access_key=${stars(40)}\n`],
    ['AWS secret in JSON', '"SecretAccessKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"', `"SecretAccessKey": "${stars(40)}"`],
    [
      'AWS secret in the environment',
      'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      `AWS_SECRET_ACCESS_KEY=${stars(40)}`,
    ],
    ['npm _authToken', '//registry.npmjs.org/:_authToken=a1b2c3d4-e5f6\n', `//registry.npmjs.org/:_authToken=${stars(13)}\n`],
    ['npm _auth', '_auth = dXNlcjpwYXNz\n', `_auth = ${stars(12)}\n`],
    ['npm _password', '//r.example.com/:_password="c2VjcmV0"\n', `//r.example.com/:_password="${stars(8)}"\n`],
    ['yarn npmAuthToken', '    npmAuthToken: abc-123-def\n', `    npmAuthToken: ${stars(11)}\n`],
    ['npm token', `NPM_TOKEN=npm_${alnum36}`, `NPM_TOKEN=npm_${stars(36)}`],
    ['Slack bot token', 'SLACK=xoxb-1234567890-abcdefghij', `SLACK=xoxb-${stars(21)}`],
    ['Authorization: Bearer', 'Authorization: Bearer abc.def-ghi_123\n', `Authorization: Bearer ${stars(15)}\n`],
    ['git extraheader', '\textraheader = AUTHORIZATION: basic eC1hY2Nlc3M=\n', `\textraheader = AUTHORIZATION: basic ${stars(12)}\n`],
    ['URL password', 'url = https://user:p4ss-w0rd@github.com/o/r.git', `url = https://user:${stars(9)}@github.com/o/r.git`],
    ['DSN password', 'postgres://app:hunter2@db:5432/main', `postgres://app:${stars(7)}@db:5432/main`],
    ['Google API key', 'key=AIzaSyA-1234567890abcdefghijklmnopqrstu', `key=AIza${stars(35)}`],
    ['Stripe live key', 'sk_live_4eC39HqLyjWDarjtT1zdp7dc', `sk_live_${stars(24)}`],
    ['OpenAI project key', 'OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwx', `OPENAI_API_KEY=sk-proj-${stars(24)}`],
    ['Anthropic key', 'sk-ant-api03-abcdefghijklmnopqrstuvwx', `sk-ant-${stars(30)}`],
    [
      'JWT signature',
      'Bearer-less eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U end',
      `Bearer-less eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.${stars(43)} end`,
    ],
    [
      'PEM private key',
      '-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\nx+y/z=\n-----END RSA PRIVATE KEY-----\n',
      `-----BEGIN RSA PRIVATE KEY-----\n${stars(16)}\n${stars(6)}\n-----END RSA PRIVATE KEY-----\n`,
    ],
    [
      'OpenSSH private key',
      '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----',
      `-----BEGIN OPENSSH PRIVATE KEY-----\n${stars(15)}\n-----END OPENSSH PRIVATE KEY-----`,
    ],
    [
      'PGP private key block',
      '-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF\n=abcd\n-----END PGP PRIVATE KEY BLOCK-----',
      `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n${stars(6)}\n${stars(5)}\n-----END PGP PRIVATE KEY BLOCK-----`,
    ],
    // Other spellings (issue 37 §5): escaped JSON, Ruby's `=>`, JSON's `\/`, a '$' inside a token.
    [
      'Bearer credential in an escaped JSON string',
      '{\\"headers\\":{\\"Authorization\\":\\"Bearer abc.def-ghi_123\\"}}',
      `{\\"headers\\":{\\"Authorization\\":\\"Bearer ${stars(15)}\\"}}`,
    ],
    [
      "AWS secret in an escaped JSON string, '/' escaped",
      '\\"aws_secret_access_key\\":\\"wJalrXUtnFEMI\\/K7MDENG\\/bPxRfiCYEXAMPLEKEY\\"',
      `\\"aws_secret_access_key\\":\\"${stars(42)}\\"`,
    ],
    ['npm _authToken in an escaped JSON string', '{\\"_authToken\\":\\"a1b2c3d4-e5f6\\"}', `{\\"_authToken\\":\\"${stars(13)}\\"}`],
    ['Bearer credential in a Ruby hash', '{ "Authorization"=>"Bearer abcdefgh12345678" }', `{ "Authorization"=>"Bearer ${stars(16)}" }`],
    [
      'URL password in a JSON-escaped URL',
      '\\"url\\":\\"https:\\/\\/deploy:s3cr3t-pw@github.com\\/o\\/r\\"',
      `\\"url\\":\\"https:\\/\\/deploy:${stars(9)}@github.com\\/o\\/r\\"`,
    ],
    ["Bearer token holding '$'", 'Authorization: Bearer abcd1234$efgh5678$ijkl\n', `Authorization: Bearer ${stars(22)}\n`],
    ['GitLab personal access token', 'GITLAB_TOKEN=glpat-xY3_abcdefghij123456', `GITLAB_TOKEN=glpat-${stars(20)}`],
    ['Slack app-level token', 'xapp-1-A0123456789-1234567890123-abcdef0123456789', `xapp-${stars(44)}`],
    ['legacy OpenAI key', 'sk-abcdefghij1234567890T3BlbkFJabcdefghij1234567890', `sk-${stars(48)}`],
    [
      'Kubernetes Secret tls.key (base64 of a PEM key)',
      `  tls.key: ${b64Key('RSA PRIVATE KEY')}\n`,
      `  tls.key: ${b64Kept('RSA PRIVATE KEY')}\n`,
    ],
    [
      'kubeconfig client-key-data',
      `    client-key-data: ${b64Key('EC PRIVATE KEY')}\n`,
      `    client-key-data: ${b64Kept('EC PRIVATE KEY')}\n`,
    ],
  ];
  for (const [name, text, masked] of shapes) {
    it(`masks a ${name}, keeping its length and the prefix that names it`, () => {
      assert.deepEqual(mask(text), { text: masked, count: 1 });
      // Masking is idempotent: nothing left to find.
      assert.deepEqual(mask(masked).count, name.includes('private key') || name.includes('PGP') ? 1 : 0);
    });
  }

  const alike: [name: string, text: string][] = [
    ['an environment reference', '//npm.pkg.github.com/:_authToken=${NODE_AUTH_TOKEN}\n'],
    ['a token too short for its shape', `ghp_short npm_abc AKIA123 xoxb-12 sk-ant-abc`],
    ['a variable named like a key', 'db_password = request.form; my_authTokenizer=1; password_hash = x'],
    ['a URL without a password', 'https://example.com:8080/x?a=b mail me@example.com git@github.com:o/r.git'],
    ['Authorization without a credential', 'Authorization: Bearer ${TOKEN}\nAuthorization header required'],
    [
      'a public key and a certificate',
      '-----BEGIN PUBLIC KEY-----\nMIIBIjAN\n-----END PUBLIC KEY-----\n-----BEGIN CERTIFICATE-----\nMIID\n',
    ],
    ['a git hash and a UUID', 'commit 9d41a42f0c3e5b8a7d6c1e2f3a4b5c6d7e8f9a0b id 123e4567-e89b-12d3-a456-426614174000'],
    [
      'a certificate in base64 (kubeconfig)',
      `    certificate-authority-data: ${b64Key('CERTIFICATE', '')}\n    client-certificate-data: ${b64Key('CERTIFICATE', '')}\n`,
    ],
    ['a Bearer variable, a Ruby hash with one', 'Authorization: Bearer $GITHUB_TOKEN\n{ "Authorization"=>"Bearer ${TOKEN}" }'],
  ];
  for (const [name, text] of alike) {
    it(`leaves ${name}`, () => {
      assert.deepEqual(mask(text), { text, count: 0 });
    });
  }

  it('keeps every UTF-8 character and line break around a masked value', () => {
    const text = `日本語 ghp_${alnum36}😀\r\nünïcode_authToken=x\n`;
    const { text: masked, count } = mask(text);
    assert.equal(count, 1);
    assert.equal(masked, `日本語 ghp_${stars(36)}😀\r\nünïcode_authToken=x\n`);
  });

  it('a private-key block: from a BEGIN line to the end when no END follows; inside one from the start when told so', () => {
    assert.deepEqual(mask('x\n-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE\nBgg'), {
      text: `x\n-----BEGIN EC PRIVATE KEY-----\n${stars(8)}\n${stars(3)}`,
      count: 1,
    });
    const body = 'MHcCAQEE\nBgg\n-----END EC PRIVATE KEY-----\nafter';
    assert.deepEqual(mask(body, true), { text: `${stars(8)}\n${stars(3)}\n-----END EC PRIVATE KEY-----\nafter`, count: 1 });
    // Not known (a page read from the middle of a file): an END line with no BEGIN before it masks what precedes it.
    assert.deepEqual(mask(body, 'unknown').text, `${stars(8)}\n${stars(3)}\n-----END EC PRIVATE KEY-----\nafter`);
    // Known not to be inside one: a stray END line masks nothing.
    assert.deepEqual(mask(body, false), { text: body, count: 0 });
  });

  it('masks a token glued to the word or the token before it (back to back is two values, not none)', () => {
    assert.deepEqual(mask(`myghp_${alnum36} AAAAKIAIOSFODNN7EXAMPLE`).text, `myghp_${stars(36)} AAAAKIA${stars(16)}`);
    const glued = mask(`npm_${alnum36}ghp_${alnum36}xoxb-1234567890-abc`);
    assert.ok(!/[A-Za-z0-9]{8}/.test(glued.text.replace(/npm_|ghp_|xoxb-/g, ' ')), glued.text);
  });

  it('counts a value that two shapes match once', () => {
    assert.deepEqual(mask(`//r/:_authToken=npm_${alnum36}\n`), { text: `//r/:_authToken=${stars(40)}\n`, count: 1 });
  });
});

describe('secret shapes: the second attack round (issue 28)', () => {
  const rsa = (): string =>
    generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const pkcs8 = (): string =>
    generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const openssh = (): string =>
    `-----BEGIN OPENSSH PRIVATE KEY-----\n${'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2\n'.repeat(5)}-----END OPENSSH PRIVATE KEY-----\n`;
  /** Each base64 body line of the keys in `text` must come back all '*'. */
  const bodiesMasked = (keys: string[], masked: string): void => {
    for (const key of keys) {
      for (const line of key.split('\n').filter((each) => each !== '' && !each.startsWith('-----'))) {
        assert.ok(!masked.includes(line), `clear: ${line}`);
      }
    }
  };

  for (const between of ['', '\n', '\n\n', '# second key\n']) {
    it(`masks both of two private keys back to back (${JSON.stringify(between)} between them: RSA, PKCS8, OpenSSH)`, () => {
      const keys = [rsa(), pkcs8(), openssh(), rsa()];
      const text = keys.map((key) => key.trimEnd()).join(`\n${between}`);
      const { text: masked, count } = mask(text);
      bodiesMasked(keys, masked);
      assert.equal(count, keys.length);
      // With no line break at all between an END and the next BEGIN.
      const glued = keys.map((key) => key.trimEnd()).join(between.trim());
      bodiesMasked(keys, mask(glued).text);
    });
  }

  it('masks the keys of a Kubernetes-style YAML (tls.key then ca.key, indented)', () => {
    const [tls, ca] = [rsa(), rsa()];
    const indent = (key: string): string => key.trimEnd().replace(/^/gm, '    ');
    const yaml = `data:\n  tls.key: |\n${indent(tls)}\n  ca.key: |\n${indent(ca)}\nkind: Secret\n`;
    const { text: masked, count } = mask(yaml);
    bodiesMasked([tls, ca], masked);
    assert.equal(count, 2);
  });

  it('masks an Authorization credential whose key name has a prefix (`_authorization`: http_, proxy_, x_)', () => {
    for (const [text, kept] of [
      ['HTTP_AUTHORIZATION=Bearer abcdefghijklmnop1234', 'HTTP_AUTHORIZATION=Bearer '],
      ['http_authorization: Bearer abcdefghijklmnop1234', 'http_authorization: Bearer '],
      ['proxy_authorization: Basic dXNlcjpwYXNzd29yZA==', 'proxy_authorization: Basic '],
      ['x_authorization = "token abcdefghijklmnop1234"', 'x_authorization = "token '],
    ]) {
      const { text: masked, count } = mask(text);
      assert.equal(count, 1, text);
      assert.ok(masked.startsWith(kept) && /^\*+"?$/.test(masked.slice(kept.length)), masked);
    }
  });

  it("a run of '@' is walked once, not once per '@' (8 MiB of them answered in one pass); a URL after it still masks", () => {
    // Each '@' is user info, so before, every one walked back USERINFO_BYTES: 8 MiB took ~10^10 steps.
    const text = `${'@'.repeat(8 * 1024 * 1024)} https://u:hunter2@db`;
    const { text: masked, count } = mask(text);
    assert.equal(count, 1);
    assert.ok(masked.endsWith('https://u:*******@db'));
    assert.deepEqual(mask('x://a:b@c@d@e').text, 'x://a:*****@e');
  });

  it("masks a URL password that holds ':', '$' or '@', whole; `${VAR}` is no password", () => {
    assert.deepEqual(mask('https://user:pa:SECRET@github.com/o/r'), { text: `https://user:${stars(9)}@github.com/o/r`, count: 1 });
    assert.deepEqual(mask('postgres://app:hunter$X@db:5432/main'), { text: `postgres://app:${stars(8)}@db:5432/main`, count: 1 });
    assert.deepEqual(mask('redis://:p@ss@cache:6379'), { text: `redis://:${stars(4)}@cache:6379`, count: 1 });
    assert.deepEqual(mask('postgres://app:${DB_PASSWORD}@db/main'), { text: 'postgres://app:${DB_PASSWORD}@db/main', count: 0 });
  });
});
