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
import { useTempDirs } from './helpers/tempDirs';
import { skipBecause } from './helpers/mochaRun';
import { homeCredentialNames } from '../../src/core/files/homeCredentials';

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
      assert.equal(matchesPathPattern(file, pattern), matches);
    });
  }

  it('issue 28: folds case on every system, in the path and in the pattern, whatever the (deprecated) option says', () => {
    assert.equal(matchesPathPattern('/r/.ENV', '.env'), true);
    assert.equal(matchesPathPattern('/r/.env', '.ENV'), true);
    assert.equal(matchesPathPattern('C:\\Users\\Me\\.SSH\\ID_RSA', '.ssh/'), true);
    assert.equal(matchesPathPattern('/r/SERVER.PEM', '*.pem'), true);
    assert.equal(matchesPathPattern('/r/Id_Ed25519.Bak', 'id_ed25519*'), true);
    assert.equal(matchesPathPattern('/r/.ENV', '.env', { caseInsensitive: false }), true);
  });

  it('survives pathological patterns quickly', () => {
    const started = Date.now();
    assert.equal(matchesPathPattern(`/${'a/'.repeat(40)}b`, `${'**/'.repeat(20)}c`), false);
    assert.equal(matchesPathPattern(`/${'a'.repeat(60)}`, `${'*a'.repeat(30)}b`), false);
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
      assert.deepEqual(isSensitivePath(file, DEFAULT_SENSITIVE_PATTERNS), { sensitive: true, pattern });
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
      assert.deepEqual(isSensitivePath(file, DEFAULT_SENSITIVE_PATTERNS), { sensitive: false });
    });
  }

  it('lets the last matching pattern decide (exceptions, and taking them back)', () => {
    assert.equal(isSensitivePath('/r/.env.example', [...DEFAULT_SENSITIVE_PATTERNS, '.env.example']).sensitive, true);
    assert.equal(isSensitivePath('/home/me/.ssh/known_hosts', [...DEFAULT_SENSITIVE_PATTERNS, '!known_hosts']).sensitive, false);
    assert.equal(isSensitivePath('/r/.env', ['!.env', '.env']).sensitive, true);
    assert.equal(isSensitivePath('/r/.env', ['.env', '!.env']).sensitive, false);
  });

  it('ignores blank patterns and comments, and matches nothing with no patterns', () => {
    assert.deepEqual(isSensitivePath('/r/.env', ['', '   ', '# .env', '/']), { sensitive: false });
    assert.deepEqual(isSensitivePath('/r/.env', []), { sensitive: false });
    assert.deepEqual(isSensitivePath('/r/secret.txt', ['secret.*']), { sensitive: true, pattern: 'secret.*' });
  });

  // Issue 21: the gaps found by trying (docs/security.md, "Files the tools read", gives each decision's reason).
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
      assert.deepEqual(isSensitivePath(file, DEFAULT_SENSITIVE_PATTERNS), pattern ? { sensitive: true, pattern } : { sensitive: false });
    });
  }

  it("the defaults are the setting's defaults in package.json (the list both front ends use)", async () => {
    const manifest = JSON.parse(await fs.readFile(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
      contributes: { configuration: { properties: Record<string, { default?: unknown }> } };
    };
    const setting = manifest.contributes.configuration.properties['toolOutputRecall.readFilePage.sensitivePatterns'];
    assert.deepEqual(setting.default, [...DEFAULT_SENSITIVE_PATTERNS]);
  });

  it('folds case for the defaults', () => {
    assert.equal(isSensitivePath('C:\\Users\\Me\\.SSH\\ID_RSA', DEFAULT_SENSITIVE_PATTERNS).sensitive, true);
    assert.equal(isSensitivePath('/Users/me/Project/.ENV', DEFAULT_SENSITIVE_PATTERNS).sensitive, true);
  });
});

// Issue 28, item 12 (a): a name that is sensitive in one case is sensitive in all, on every system.
describe('sensitive paths: case (issue 28)', () => {
  const reported: [file: string, pattern: string][] = [
    ['/repo/.ENV', '.env'],
    ['/home/me/.AWS/credentials', '.aws/credentials'],
    ['/repo/certs/cert.PFX', '*.pfx'],
    ['/home/me/keys/ID_ED25519', 'id_ed25519'],
  ];
  for (const [file, pattern] of reported) {
    it(`refuses ${file} as its lower-case name is refused (${pattern}), with no option passed`, () => {
      assert.deepEqual(isSensitivePath(file, DEFAULT_SENSITIVE_PATTERNS), { sensitive: true, pattern });
      assert.deepEqual(isSensitivePath(file.toLowerCase(), DEFAULT_SENSITIVE_PATTERNS), { sensitive: true, pattern });
      assert.deepEqual(isSensitivePath(file), { sensitive: true, pattern }, 'the default patterns');
      assert.deepEqual(isSensitivePath(file, DEFAULT_SENSITIVE_PATTERNS, { caseInsensitive: false }), { sensitive: true, pattern });
    });
  }

  /** Every letter upper-cased, and every other letter (`.EnV.LoCaL`). */
  const variants = (file: string): string[] => [
    file.toUpperCase(),
    Array.from(file)
      .map((c, i) => (i % 2 ? c.toUpperCase() : c.toLowerCase()))
      .join(''),
  ];

  it('every default pattern refuses its paths in any case, naming the same pattern', () => {
    const paths: [string, string][] = [
      ['/repo/.env', '.env'],
      ['/repo/.env.local', '.env.*'],
      ['/repo/prod.env', '*.env'],
      ['/repo/.envrc', '.envrc'],
      ['/k/id_rsa', 'id_rsa'],
      ['/k/id_dsa', 'id_dsa'],
      ['/k/id_ecdsa', 'id_ecdsa'],
      ['/k/id_ed25519_sk', 'id_ed25519_sk'],
      ['/k/id_ed25519.bak', 'id_ed25519*'],
      ['/r/server.pem', '*.pem'],
      ['/r/server.key', '*.key'],
      ['/r/client.p12', '*.p12'],
      ['/r/client.pfx', '*.pfx'],
      ['/h/.ssh/config', '.ssh/'],
      ['/h/.ssh.bak/id_rsa2', '.ssh*/'],
      ['/h/.aws/credentials', '.aws/credentials'],
      ['/h/.aws/config', '.aws/config'],
      ['/h/.azure/azureProfile.json', '.azure/'],
      ['/h/.config/gcloud/credentials.db', '.config/gcloud/'],
      ['C:\\Users\\me\\AppData\\Roaming\\gcloud\\access_tokens.db', 'AppData/Roaming/gcloud/'],
      ['/s/application_default_credentials.json', 'application_default_credentials.json'],
      ['/r/my-service-account.json', '*service-account*.json'],
      ['/r/my_service_account.json', '*service_account*.json'],
      ['/h/.kube/config', '.kube/config'],
      ['/h/.docker/config.json', '.docker/config.json'],
      ['/h/.config/gh/hosts.yml', '.config/gh/hosts.yml'],
      ['/r/terraform.tfstate', '*.tfstate'],
      ['/r/terraform.tfstate.backup', '*.tfstate.backup'],
      ['/h/.netrc', '.netrc'],
      ['/h/_netrc', '_netrc'],
      ['/h/.git-credentials', '.git-credentials'],
      ['/h/.pgpass', '.pgpass'],
    ];
    for (const [file, pattern] of paths) {
      for (const variant of variants(file)) {
        assert.deepEqual(isSensitivePath(variant, DEFAULT_SENSITIVE_PATTERNS), { sensitive: true, pattern }, variant);
      }
    }
  });

  it('the exceptions hold in any case: templates, public keys, notes about keys', () => {
    for (const file of [
      '/repo/.env.example',
      '/repo/.env.local.sample',
      '/repo/.env.template',
      '/repo/.env.dist',
      '/repo/prod.env.example',
      '/repo/keys/id_ed25519.pub',
      '/repo/keys/id_rsa.bak.pub',
      '/repo/docs/id_ed25519.md',
    ]) {
      for (const variant of [file, ...variants(file)]) {
        assert.deepEqual(isSensitivePath(variant, DEFAULT_SENSITIVE_PATTERNS), { sensitive: false }, variant);
      }
    }
    // Not sensitive in any case: look-alikes that are source code, a virtualenv named .env.
    for (const file of ['/repo/src/Environment.ts', '/repo/src/ENV.ts', '/repo/.ENV/lib/site.py', '/repo/aws/Credentials.ts']) {
      assert.deepEqual(isSensitivePath(file, DEFAULT_SENSITIVE_PATTERNS), { sensitive: false }, file);
    }
  });

  it("the user's own patterns and exceptions fold the same way", () => {
    assert.deepEqual(isSensitivePath('/r/Secret.TXT', ['secret.*']), { sensitive: true, pattern: 'secret.*' });
    assert.deepEqual(isSensitivePath('/r/a.secret', ['*.SECRET']), { sensitive: true, pattern: '*.SECRET' });
    assert.deepEqual(isSensitivePath('/r/Private/notes.md', ['private/']), { sensitive: true, pattern: 'private/' });
    assert.deepEqual(isSensitivePath('/r/keep.LOG', ['*.log', '!KEEP.log']), { sensitive: false });
    assert.deepEqual(isSensitivePath('/R/.ENV.EXAMPLE', [...DEFAULT_SENSITIVE_PATTERNS, '.env.example']), {
      sensitive: true,
      pattern: '.env.example',
    });
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
    assert.deepEqual(await isSensitiveFile(withToken, DEFAULT_SENSITIVE_PATTERNS), {
      sensitive: true,
      pattern: '.npmrc',
      reason: '.npmrc contains a credential (_authToken)',
    });
    const without = await file('.npmrc', 'registry=https://registry.npmjs.org/\nsave-exact=true\n# _authToken=old\n; _auth=old\n');
    assert.deepEqual(await isSensitiveFile(without, DEFAULT_SENSITIVE_PATTERNS), { sensitive: false });
  });

  it('treats an environment reference as no credential', async () => {
    const reference = await file('.npmrc', '//npm.pkg.github.com/:_authToken=${NODE_AUTH_TOKEN}\n');
    assert.equal((await isSensitiveFile(reference, DEFAULT_SENSITIVE_PATTERNS)).sensitive, false);
    const yarnReference = await file('.yarnrc.yml', 'npmRegistries:\n  "https://npm.example.com":\n    npmAuthToken: "${NPM_TOKEN}"\n');
    assert.equal((await isSensitiveFile(yarnReference, DEFAULT_SENSITIVE_PATTERNS)).sensitive, false);
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
      const result = await isSensitiveFile(await file(name, content), DEFAULT_SENSITIVE_PATTERNS);
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
    assert.equal((await isSensitiveFile(readme, DEFAULT_SENSITIVE_PATTERNS)).sensitive, false);
  });

  it('still applies the name patterns, and can skip the content check', async () => {
    const env = await file('.env', 'A=1\n');
    assert.deepEqual(await isSensitiveFile(env, DEFAULT_SENSITIVE_PATTERNS), { sensitive: true, pattern: '.env' });
    const npmrc = await file('.npmrc', '_authToken=abc\n');
    assert.equal((await isSensitiveFile(npmrc, DEFAULT_SENSITIVE_PATTERNS, { contentChecks: false })).sensitive, false);
    assert.equal((await isSensitiveFile(npmrc, [])).sensitive, true, 'content checks do not depend on the pattern list');
  });

  it('flags a copy of a credential config file that holds a credential (.npmrc.bak, .npmrc~), not one without', async () => {
    for (const name of ['.npmrc.bak', '.npmrc~', '.npmrc (copy)']) {
      const withToken = await file(name, '//registry.npmjs.org/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789\n');
      assert.deepEqual(await isSensitiveFile(withToken, DEFAULT_SENSITIVE_PATTERNS), {
        sensitive: true,
        pattern: '.npmrc',
        reason: `${name} contains a credential (_authToken)`,
      });
      assert.equal((await isSensitiveFile(await file(name, 'save-exact=true\n'), DEFAULT_SENSITIVE_PATTERNS)).sensitive, false);
    }
  });

  it('issue 28: looks inside a credential config file named in any case (.NPMRC, .Yarnrc.YML, .PyPiRc.bak)', async () => {
    const cases: [name: string, content: string, pattern: string, key: string][] = [
      ['.NPMRC', '//registry.npmjs.org/:_authToken=npm_abcdef123456\n', '.npmrc', '_authToken'],
      ['.Yarnrc.YML', 'npmAuthToken: abc-123\n', '.yarnrc.yml', 'npmAuthToken'],
      ['.PyPiRc.bak', '[pypi]\npassword = pypi-AgEIcHlwaS5vcmc\n', '.pypirc', 'password'],
    ];
    for (const [name, content, pattern, key] of cases) {
      assert.deepEqual(await isSensitiveFile(await file(name, content), DEFAULT_SENSITIVE_PATTERNS), {
        sensitive: true,
        pattern,
        reason: `${name} contains a credential (${key})`,
      });
      assert.equal((await isSensitiveFile(await file(name, 'save-exact=true\n'), DEFAULT_SENSITIVE_PATTERNS)).sensitive, false, name);
    }
  });

  it('judges a missing or unreadable file by its name', async () => {
    assert.deepEqual(await isSensitiveFile(path.join(dir, 'nope', '.npmrc'), DEFAULT_SENSITIVE_PATTERNS), { sensitive: false });
    const folder = path.join(dir, 'dir-named', '.npmrc');
    await fs.mkdir(folder, { recursive: true });
    assert.deepEqual(await isSensitiveFile(folder, DEFAULT_SENSITIVE_PATTERNS), { sensitive: false });
  });
});

// Issue 28, item 12 (b): the other names a hard-linked file has among the home folder's credentials.
describe("sensitive files: a hard link's other names in the home folder (homeCredentialNames)", () => {
  const dirs = useTempDirs('home-names');
  let home: string;
  let elsewhere: string;
  const identity = async (file: string): Promise<{ dev: bigint; ino: bigint }> => fs.stat(file, { bigint: true });
  before(async () => {
    home = await fs.realpath(dirs.make());
    elsewhere = await fs.realpath(dirs.make());
    const files: [string, string][] = [
      ['.aws/credentials', '[default]\n'],
      ['.ssh/id_ed25519', 'key\n'],
      ['.ssh.bak/id_rsa2', 'key\n'],
      ['.netrc', 'machine x login y password z\n'],
      ['.npmrc', 'save-exact=true\n'],
      ['.config/gh/hosts.yml', 'github.com:\n'],
      ['.config/gcloud/legacy_credentials/me@example.com/adc.json', '{}\n'],
      ['notes.txt', 'not a credential\n'],
      ['projects/app/.env', 'A=1\n'],
    ];
    for (const [name, content] of files) {
      await fs.mkdir(path.dirname(path.join(home, name)), { recursive: true });
      await fs.writeFile(path.join(home, name), content);
    }
  });

  it('finds the credential a file is another name of, three folders deep included; nothing for other files', async () => {
    for (const name of [
      '.aws/credentials',
      '.ssh/id_ed25519',
      '.ssh.bak/id_rsa2',
      '.netrc',
      '.npmrc',
      '.config/gh/hosts.yml',
      '.config/gcloud/legacy_credentials/me@example.com/adc.json',
    ]) {
      const link = path.join(elsewhere, `${name.replace(/\W/g, '-')}.txt`);
      await fs.link(path.join(home, name), link);
      assert.deepEqual(await homeCredentialNames(await identity(link), DEFAULT_SENSITIVE_PATTERNS, home), [path.join(home, name)], name);
    }
    // Not where credentials live, or not a sensitive name: not looked at.
    for (const name of ['notes.txt', 'projects/app/.env']) {
      assert.deepEqual(await homeCredentialNames(await identity(path.join(home, name)), DEFAULT_SENSITIVE_PATTERNS, home), [], name);
    }
    const unrelated = path.join(elsewhere, 'unrelated.txt');
    await fs.writeFile(unrelated, 'x\n');
    assert.deepEqual(await homeCredentialNames(await identity(unrelated), DEFAULT_SENSITIVE_PATTERNS, home), []);
    assert.deepEqual(await homeCredentialNames(await identity(unrelated), DEFAULT_SENSITIVE_PATTERNS, path.join(home, 'missing')), []);
    assert.deepEqual(
      await homeCredentialNames(await identity(path.join(home, '.netrc')), DEFAULT_SENSITIVE_PATTERNS, ''),
      [],
      'no home folder',
    );
  });

  it("judges the home folder's files by the patterns given (a credential config file always)", async () => {
    const credentials = await identity(path.join(home, '.aws', 'credentials'));
    assert.deepEqual(await homeCredentialNames(credentials, ['*.secret'], home), []);
    assert.deepEqual(await homeCredentialNames(await identity(path.join(home, '.npmrc')), [], home), [path.join(home, '.npmrc')]);
    assert.deepEqual(await homeCredentialNames(await identity(path.join(home, 'notes.txt')), ['notes.*'], home), [
      path.join(home, 'notes.txt'),
    ]);
  });

  it('follows a link in the home folder (a dotfile manager)', async function () {
    const target = path.join(elsewhere, 'dotfiles-git-credentials');
    await fs.writeFile(target, 'https://u:p@example.com\n');
    try {
      await fs.symlink(target, path.join(home, '.git-credentials'));
    } catch (error) {
      skipBecause(this, `symbolic links cannot be made here (${(error as Error).message})`);
    }
    assert.deepEqual(await homeCredentialNames(await identity(target), DEFAULT_SENSITIVE_PATTERNS, home), [
      path.join(home, '.git-credentials'),
    ]);
  });
});
