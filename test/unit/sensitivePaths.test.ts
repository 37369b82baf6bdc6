import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  DEFAULT_SENSITIVE_PATTERNS,
  findCredentialKey,
  isSensitiveFile,
  isSensitivePath,
  matchesPathPattern,
  pathSegments,
} from '../../src/core/files/sensitivePaths';

const exact = { caseInsensitive: false };
const folded = { caseInsensitive: true };

describe('sensitive paths: the glob matcher', () => {
  const cases: [pattern: string, path: string, matches: boolean][] = [
    // basename-only patterns
    ['.env', '/repo/.env', true],
    ['.env', '/repo/sub/.env', true],
    ['.env', '.env', true],
    ['.env', '/repo/.env/lib/site.py', false],
    ['.env', '/repo/.envrc', false],
    ['*.pem', '/a/b/server.pem', true],
    ['*.pem', '/a/b/.pem', true],
    ['*.pem', '/a/b/server.pem.md', false],
    ['*.pem', '/a/b.pem/readme.md', false],
    ['id_?sa', '/k/id_rsa', true],
    ['id_?sa', '/k/id_ecdsa', false],
    ['.env*.example', '/r/.env.local.example', true],
    ['a*b*c', '/x/aXXbYYc', true],
    ['a*b*c', '/x/aXXbYY', false],
    ['a.b', '/x/aXb', false], // '.' is literal
    ['(x)+[y]', '/x/(x)+[y]', true], // regex specials are literal
    // patterns with '/': trailing segments at any depth
    ['.aws/credentials', '/home/me/.aws/credentials', true],
    ['.aws/credentials', '/home/me/.aws/credentials/x', false],
    ['.aws/credentials', '/home/me/aws/credentials', false],
    ['.aws/credentials', '/home/me/x.aws/credentials', false],
    ['.config/gcloud/', '/home/me/.config/gcloud/configurations/config_default', true],
    ['.config/gcloud/', '/home/me/.config/gcloud', true],
    ['.config/gcloud/', '/home/me/.config/gcloudx/a', false],
    // trailing '/': the directory and everything under it
    ['.ssh/', '/home/me/.ssh/id_rsa', true],
    ['.ssh/', '/home/me/.ssh/keys/deep/x', true],
    ['.ssh/', '/home/me/ssh/id_rsa', false],
    ['.ssh/', '/home/me/.sshx/id_rsa', false],
    // '**'
    ['**/secrets/*.json', '/a/b/secrets/x.json', true],
    ['**/secrets/*.json', '/a/b/secrets/deep/x.json', false],
    ['secrets/**/*.json', '/a/secrets/x.json', true],
    ['secrets/**/*.json', '/a/secrets/1/2/3/x.json', true],
    ['secrets/**', '/a/secrets/1/2', true],
    ['**/**/**/x', '/x', true],
    // leading '/' anchors at the root
    ['/etc/shadow', '/etc/shadow', true],
    ['/etc/shadow', '/chroot/etc/shadow', false],
    // Windows paths
    ['.ssh/', 'C:\\Users\\me\\.ssh\\id_ed25519', true],
    ['AppData/Roaming/gcloud/', 'C:\\Users\\me\\AppData\\Roaming\\gcloud\\credentials.db', true],
    ['.aws\\credentials', '/home/me/.aws/credentials', true],
  ];
  for (const [pattern, file, matches] of cases) {
    it(`${matches ? 'matches' : 'does not match'} ${JSON.stringify(pattern)} against ${file}`, () => {
      assert.equal(matchesPathPattern(file, pattern, exact), matches);
    });
  }

  it('folds case only when asked (default: win32 and darwin)', () => {
    assert.equal(matchesPathPattern('/r/.ENV', '.env', exact), false);
    assert.equal(matchesPathPattern('/r/.ENV', '.env', folded), true);
    assert.equal(matchesPathPattern('C:\\Users\\Me\\.SSH\\ID_RSA', '.ssh/', folded), true);
    const platformFolds = process.platform === 'win32' || process.platform === 'darwin';
    assert.equal(matchesPathPattern('/r/SERVER.PEM', '*.pem'), platformFolds);
  });

  it('survives pathological patterns quickly', () => {
    const started = Date.now();
    assert.equal(matchesPathPattern(`/${'a/'.repeat(40)}b`, `${'**/'.repeat(20)}c`, exact), false);
    assert.equal(matchesPathPattern(`/${'a'.repeat(60)}`, `${'*a'.repeat(30)}b`, exact), false);
    assert.ok(Date.now() - started < 500);
  });

  it('splits POSIX and Windows paths into segments', () => {
    assert.deepEqual(pathSegments('/a//b/c/'), ['a', 'b', 'c']);
    assert.deepEqual(pathSegments('C:\\a\\b'), ['C:', 'a', 'b']);
    assert.deepEqual(pathSegments('\\\\server\\share\\f'), ['server', 'share', 'f']);
  });
});

describe('sensitive paths: the defaults', () => {
  const sensitive: [file: string, pattern: string][] = [
    ['/repo/.env', '.env'],
    ['/repo/.env.local', '.env.*'],
    ['/repo/.env.production', '.env.*'],
    ['/repo/packages/api/.env.development.local', '.env.*'],
    ['/repo/.envrc', '.envrc'],
    ['/home/me/keys/id_rsa', 'id_rsa'],
    ['/home/me/keys/id_dsa', 'id_dsa'],
    ['/home/me/keys/id_ecdsa', 'id_ecdsa'],
    ['/home/me/keys/id_ed25519', 'id_ed25519'],
    ['/home/me/keys/id_ed25519_sk', 'id_ed25519_sk'],
    ['/home/me/keys/id_ecdsa_sk', 'id_ecdsa_sk'],
    ['/repo/certs/server.pem', '*.pem'],
    ['/repo/certs/server.key', '*.key'],
    ['/repo/certs/client.p12', '*.p12'],
    ['/repo/certs/client.pfx', '*.pfx'],
    ['/home/me/.ssh/config', '.ssh/'],
    ['/home/me/.ssh/known_hosts', '.ssh/'],
    ['/home/me/.ssh/id_rsa', '.ssh/'],
    ['/home/me/.ssh/id_rsa.pub', '.ssh/'],
    ['/home/me/.aws/credentials', '.aws/credentials'],
    ['/home/me/.aws/config', '.aws/config'],
    ['/home/me/.azure/msal_token_cache.json', '.azure/'],
    ['/home/me/.azure/azureProfile.json', '.azure/'],
    ['/home/me/.config/gcloud/credentials.db', '.config/gcloud/'],
    ['/home/me/.config/gcloud/legacy_credentials/me@x.com/adc.json', '.config/gcloud/'],
    ['C:\\Users\\me\\AppData\\Roaming\\gcloud\\access_tokens.db', 'AppData/Roaming/gcloud/'],
    ['/srv/app/application_default_credentials.json', 'application_default_credentials.json'],
    ['/home/me/.kube/config', '.kube/config'],
    ['/home/me/.docker/config.json', '.docker/config.json'],
    ['/home/me/.netrc', '.netrc'],
    ['C:\\Users\\me\\_netrc', '_netrc'],
    ['/home/me/.git-credentials', '.git-credentials'],
    ['/home/me/.pgpass', '.pgpass'],
  ];
  for (const [file, pattern] of sensitive) {
    it(`flags ${file} (${pattern})`, () => {
      assert.deepEqual(isSensitivePath(file, DEFAULT_SENSITIVE_PATTERNS, exact), { sensitive: true, pattern });
    });
  }

  const harmless = [
    '/repo/src/environment.ts',
    '/repo/src/env.ts',
    '/repo/src/dotenv.js',
    '/repo/.environment',
    '/repo/.env.example',
    '/repo/.env.sample',
    '/repo/.env.template',
    '/repo/.env.dist',
    '/repo/.env.local.example',
    '/repo/.env/lib/python3.12/site-packages/six.py', // a virtualenv named .env
    '/repo/docs/keys.md',
    '/repo/src/key.ts',
    '/repo/src/keyboard.key.ts',
    '/repo/keys/id_rsa.pub',
    '/repo/docs/id_rsa.md',
    '/repo/pem/readme.md',
    '/repo/src/ssh/client.ts',
    '/repo/aws/credentials.ts',
    '/repo/.kube/readme.md',
    '/repo/.config/app.json',
    '/repo/netrc.ts',
    '/repo/.npmrc', // judged by content, not by name
    '/repo/package.json',
  ];
  for (const file of harmless) {
    it(`does not flag ${file}`, () => {
      assert.deepEqual(isSensitivePath(file, DEFAULT_SENSITIVE_PATTERNS, exact), { sensitive: false });
    });
  }

  it('lets the last matching pattern decide (exceptions, and taking them back)', () => {
    assert.equal(isSensitivePath('/r/.env.example', [...DEFAULT_SENSITIVE_PATTERNS, '.env.example'], exact).sensitive, true);
    assert.equal(isSensitivePath('/home/me/.ssh/known_hosts', [...DEFAULT_SENSITIVE_PATTERNS, '!known_hosts'], exact).sensitive, false);
    assert.equal(isSensitivePath('/r/.env', ['!.env', '.env'], exact).sensitive, true);
    assert.equal(isSensitivePath('/r/.env', ['.env', '!.env'], exact).sensitive, false);
  });

  it('ignores blank patterns and comments, and matches nothing with no patterns', () => {
    assert.deepEqual(isSensitivePath('/r/.env', ['', '   ', '# .env', '/'], exact), { sensitive: false });
    assert.deepEqual(isSensitivePath('/r/.env', [], exact), { sensitive: false });
    assert.deepEqual(isSensitivePath('/r/secret.txt', ['secret.*'], exact), { sensitive: true, pattern: 'secret.*' });
  });

  // Issue 21: the gaps found by trying (README, "Files the tools read", gives each decision's reason).
  const issue21: [file: string, pattern: string | undefined][] = [
    ['/repo/prod.env', '*.env'],
    ['/repo/config/staging.env', '*.env'],
    ['/home/me/keys/id_ed25519.bak', 'id_ed25519*'],
    ['/home/me/keys/id_ed25519 (copy)', 'id_ed25519*'],
    ['/home/me/keys/id_rsa2', 'id_rsa*'],
    ['/home/me/.ssh.bak/id_rsa2', '.ssh*/'],
    ['/home/me/.ssh.bak/config', '.ssh*/'],
    ['/repo/deploy/service-account.json', '*service-account*.json'],
    ['/repo/my-project-service_account-key.json', '*service_account*.json'],
    ['/home/me/.config/gh/hosts.yml', '.config/gh/hosts.yml'],
    ['/repo/infra/terraform.tfstate', '*.tfstate'],
    ['/repo/infra/terraform.tfstate.backup', '*.tfstate.backup'],
    // Judged by content, not by name: a credential in them is refused (.npmrc.bak) or masked (.git/config).
    ['/repo/.npmrc.bak', undefined],
    ['/repo/.git/config', undefined],
    // Still not sensitive: public keys and notes about keys, a template beside prod.env.
    ['/repo/keys/id_ed25519.pub', undefined],
    ['/repo/keys/id_ed25519.bak.pub', undefined],
    ['/repo/docs/id_ed25519.md', undefined],
    ['/repo/prod.env.example', undefined],
  ];
  for (const [file, pattern] of issue21) {
    it(`issue 21: ${file} is ${pattern ? `sensitive (${pattern})` : 'not sensitive by name'}`, () => {
      assert.deepEqual(
        isSensitivePath(file, DEFAULT_SENSITIVE_PATTERNS, exact),
        pattern ? { sensitive: true, pattern } : { sensitive: false },
      );
    });
  }

  it("the defaults are the setting's defaults in package.json (the list both front ends use)", async () => {
    const manifest = JSON.parse(await fs.readFile(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
      contributes: { configuration: { properties: Record<string, { default?: unknown }> } };
    };
    const setting = manifest.contributes.configuration.properties['toolOutputRecall.readFilePage.sensitivePatterns'];
    assert.deepEqual(setting.default, [...DEFAULT_SENSITIVE_PATTERNS]);
  });

  it('folds case for the defaults on case-insensitive systems', () => {
    assert.equal(isSensitivePath('C:\\Users\\Me\\.SSH\\ID_RSA', DEFAULT_SENSITIVE_PATTERNS, folded).sensitive, true);
    assert.equal(isSensitivePath('/Users/me/Project/.ENV', DEFAULT_SENSITIVE_PATTERNS, folded).sensitive, true);
    assert.equal(isSensitivePath('/Users/me/Project/.ENV', DEFAULT_SENSITIVE_PATTERNS, exact).sensitive, false);
  });
});

describe('sensitive files: credentials in config files', () => {
  let dir: string;
  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'recall-sensitive-'));
  });
  after(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });
  let n = 0;
  async function file(name: string, content: string): Promise<string> {
    const folder = path.join(dir, String(n++));
    await fs.mkdir(folder);
    const full = path.join(folder, name);
    await fs.writeFile(full, content);
    return full;
  }

  it('flags an .npmrc with an auth token, and not one without', async () => {
    const withToken = await file('.npmrc', 'registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken=npm_abcdef123456\n');
    assert.deepEqual(await isSensitiveFile(withToken, DEFAULT_SENSITIVE_PATTERNS, exact), {
      sensitive: true,
      pattern: '.npmrc',
      reason: '.npmrc contains a credential (_authToken)',
    });
    const without = await file('.npmrc', 'registry=https://registry.npmjs.org/\nsave-exact=true\n# _authToken=old\n; _auth=old\n');
    assert.deepEqual(await isSensitiveFile(without, DEFAULT_SENSITIVE_PATTERNS, exact), { sensitive: false });
  });

  it('treats an environment reference as no credential', async () => {
    const reference = await file('.npmrc', '//npm.pkg.github.com/:_authToken=${NODE_AUTH_TOKEN}\n');
    assert.equal((await isSensitiveFile(reference, DEFAULT_SENSITIVE_PATTERNS, exact)).sensitive, false);
    const yarnReference = await file('.yarnrc.yml', 'npmRegistries:\n  "https://npm.example.com":\n    npmAuthToken: "${NPM_TOKEN}"\n');
    assert.equal((await isSensitiveFile(yarnReference, DEFAULT_SENSITIVE_PATTERNS, exact)).sensitive, false);
  });

  it('flags _auth, _password, npmAuthToken, npmAuthIdent and .pypirc passwords', async () => {
    const cases: [name: string, content: string, key: string][] = [
      ['.npmrc', '_auth = dXNlcjpwYXNz\n', '_auth'],
      ['.npmrc', '//r.example.com/:_password="c2VjcmV0"\n', '_password'],
      ['.yarnrc.yml', 'npmRegistries:\n  "https://npm.example.com":\n    npmAuthToken: abc-123\n', 'npmAuthToken'],
      ['.yarnrc.yml', 'npmAuthIdent: "user:pass"\n', 'npmAuthIdent'],
      ['.yarnrc', '"//registry.example.com/:_authToken" "tok"\n', '_authToken'],
      ['.yarnrc', '_authToken tok\n', '_authToken'],
      ['.pypirc', '[distutils]\nindex-servers = pypi\n\n[pypi]\nusername = __token__\npassword = pypi-AgEIcHlwaS5vcmc\n', 'password'],
      ['.npmrc', '\r\n//registry.npmjs.org/:_authToken=abc\r\n', '_authToken'],
    ];
    for (const [name, content, key] of cases) {
      const result = await isSensitiveFile(await file(name, content), DEFAULT_SENSITIVE_PATTERNS, exact);
      assert.deepEqual(result, { sensitive: true, pattern: name, reason: `${name} contains a credential (${key})` }, `${name}: ${content}`);
    }
  });

  it('does not flag look-alike keys or other files with tokens', async () => {
    assert.equal(findCredentialKey('always-auth=true\nemail=me@example.com\n'), undefined);
    assert.equal(findCredentialKey('username = __token__\n[server]\npassword =\n'), undefined);
    assert.equal(findCredentialKey('my_authTokenizer=1\n'), undefined);
    assert.equal(findCredentialKey('npmAlwaysAuth: true\n'), undefined);
    // Only the credential config files are opened; a token in a README is not a credential file.
    const readme = await file('README.md', '_authToken=abc\n');
    assert.equal((await isSensitiveFile(readme, DEFAULT_SENSITIVE_PATTERNS, exact)).sensitive, false);
  });

  it('still applies the name patterns, and can skip the content check', async () => {
    const env = await file('.env', 'A=1\n');
    assert.deepEqual(await isSensitiveFile(env, DEFAULT_SENSITIVE_PATTERNS, exact), { sensitive: true, pattern: '.env' });
    const npmrc = await file('.npmrc', '_authToken=abc\n');
    assert.equal((await isSensitiveFile(npmrc, DEFAULT_SENSITIVE_PATTERNS, { ...exact, contentChecks: false })).sensitive, false);
    assert.equal((await isSensitiveFile(npmrc, [], exact)).sensitive, true, 'content checks do not depend on the pattern list');
  });

  it('flags a copy of a credential config file that holds a credential (.npmrc.bak, .npmrc~), not one without', async () => {
    for (const name of ['.npmrc.bak', '.npmrc~', '.npmrc (copy)']) {
      const withToken = await file(name, '//registry.npmjs.org/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789\n');
      assert.deepEqual(await isSensitiveFile(withToken, DEFAULT_SENSITIVE_PATTERNS, exact), {
        sensitive: true,
        pattern: '.npmrc',
        reason: `${name} contains a credential (_authToken)`,
      });
      assert.equal((await isSensitiveFile(await file(name, 'save-exact=true\n'), DEFAULT_SENSITIVE_PATTERNS, exact)).sensitive, false);
    }
  });

  it('judges a missing or unreadable file by its name', async () => {
    assert.deepEqual(await isSensitiveFile(path.join(dir, 'nope', '.npmrc'), DEFAULT_SENSITIVE_PATTERNS, exact), { sensitive: false });
    const folder = path.join(dir, 'dir-named', '.npmrc');
    await fs.mkdir(folder, { recursive: true });
    assert.deepEqual(await isSensitiveFile(folder, DEFAULT_SENSITIVE_PATTERNS, exact), { sensitive: false });
  });
});
