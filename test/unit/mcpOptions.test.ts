// The MCP server's command line, the schemas it checks inputs against, and where it keeps sessions.
import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, symlinkSync } from 'node:fs';
import * as path from 'node:path';
import { defaultStoreDir, stateHome } from '../../src/core/agentStore';
import { resolveSettings } from '../../src/core/settings';
import { CHECKED_KEYWORDS, checkToolInput, schemaProblem } from '../../src/core/tools/inputCheck';
import { TOOL_DECLARATIONS, settingSchema, type JsonSchema } from '../../src/core/manifest';
import { searchToolOutputText } from '../../src/core/tools/searchToolOutput';
import type { RecallStore } from '../../src/core/types';
import { TOOL_NAMES } from '../../src/core/tools/registry';
import { SERVER_SETTINGS, UsageError, envFor, flagFor, parseOptions, type ServerOptions } from '../../src/mcp/options';
import { rejectsWith, throwsWith } from './helpers/assertions';
import { useTempDirs } from './helpers/tempDirs';

const manifest = require('../../package.json') as { contributes: { configuration: { properties: Record<string, JsonSchema> } } };

function keywordsIn(schema: JsonSchema, found = new Set<string>()): Set<string> {
  for (const [keyword, value] of Object.entries(schema)) {
    found.add(keyword);
    if (keyword === 'properties') for (const property of Object.values(value as Record<string, JsonSchema>)) keywordsIn(property, found);
    if (keyword === 'items') keywordsIn(value as JsonSchema, found);
  }
  return found;
}

describe('mcp: input schemas from the manifest', () => {
  it('are the languageModelTools of package.json, one per tool name', () => {
    assert.deepEqual(TOOL_DECLARATIONS.map((tool) => tool.name).sort(), [...TOOL_NAMES].sort());
    for (const tool of TOOL_DECLARATIONS) assert.equal(tool.inputSchema.type, 'object', tool.name);
  });

  it('use only keywords the checker understands (tools and settings)', () => {
    const used = new Set<string>();
    for (const tool of TOOL_DECLARATIONS) keywordsIn(tool.inputSchema, used);
    for (const setting of Object.values(manifest.contributes.configuration.properties)) keywordsIn(setting, used);
    assert.deepEqual(
      [...used].filter((keyword) => !CHECKED_KEYWORDS.has(keyword)),
      [],
    );
  });

  it('accept every input that fits and say what is wrong with one that does not', () => {
    const read = TOOL_DECLARATIONS.find((tool) => tool.name === 'read_tool_output')!.inputSchema;
    checkToolInput(read, { outputId: 'out_1', offset: 0, maxBytes: 4096 });
    const cases: [unknown, RegExp][] = [
      [undefined, /^the input must be a JSON object; got nothing$/],
      [[1], /^the input must be a JSON object; got \[1\]$/],
      [{}, /^the input needs "outputId" \(The outputId from/],
      [{ outputId: 7 }, /^the input property "outputId" must be a string; got 7/],
      [{ outputId: 'o', offset: 1.5 }, /property "offset" must be an integer ≥ 0; got 1\.5/],
      [{ outputId: 'o', maxBytes: 0 }, /property "maxBytes" must be an integer ≥ 1 and ≤ 4096; got 0/],
      [{ outputId: 'o', extra: true }, /has an unknown property "extra"; the properties are outputId, offset, maxBytes, session$/],
    ];
    for (const [input, expected] of cases) {
      const error = throwsWith(() => checkToolInput(read, input), 'INVALID_ARGUMENT');
      assert.match(error.message, expected, JSON.stringify(input));
    }
  });

  it('search_tool_output takes outputId or path: the schema needs only pattern, the tool says which of the two is missing', async () => {
    const search = TOOL_DECLARATIONS.find((tool) => tool.name === 'search_tool_output')!.inputSchema;
    assert.deepEqual(search.required, ['pattern']);
    checkToolInput(search, { outputId: 'out_1', pattern: 'x' });
    checkToolInput(search, { path: 'build.log', pattern: 'x', regex: true, caseSensitive: false, maxMatches: 10 });
    // Which of the two is the tool's own check (a schema cannot say "exactly one" in the subset checked here).
    checkToolInput(search, { pattern: 'x' });
    assert.match(throwsWith(() => checkToolInput(search, { path: 'a.log' }), 'INVALID_ARGUMENT').message, /^the input needs "pattern"/);
    assert.match(
      throwsWith(() => checkToolInput(search, { path: 3, pattern: 'x' }), 'INVALID_ARGUMENT').message,
      /^the input property "path" must be a string; got 3/,
    );
    const store = {} as RecallStore;
    // The tool itself searches every output with neither (searchAcross.ts); this function is for one of them.
    const neither = await rejectsWith(searchToolOutputText(store, { pattern: 'x' }), 'INVALID_ARGUMENT');
    assert.match(neither.message, /takes either "outputId" \(a retained output\) or "path" \(a file.*\) here, and got neither\.$/);
    const list = TOOL_DECLARATIONS.find((tool) => tool.name === 'list_tool_outputs')!.inputSchema;
    checkToolInput(list, { exit: 'failed' });
    assert.match(
      throwsWith(() => checkToolInput(list, { exit: 'crashed' }), 'INVALID_ARGUMENT').message,
      /^the input property "exit" must be one of "failed", "ok"; got "crashed"/,
    );
    const both = await rejectsWith(searchToolOutputText(store, { outputId: 'out_1', path: 'a.log', pattern: 'x' }), 'INVALID_ARGUMENT');
    assert.match(both.message, /, not both\.$/);
  });

  it('check numbers, exclusive minimums and arrays', () => {
    assert.equal(schemaProblem({ type: 'number', exclusiveMinimum: 0 }, 0), 'must be a number > 0; got 0');
    assert.equal(schemaProblem({ type: 'number', exclusiveMinimum: 0 }, 0.5), undefined);
    assert.equal(schemaProblem({ type: 'number' }, Number.NaN), 'must be a number; got null');
    assert.equal(schemaProblem({ type: 'array', items: { type: 'string' } }, ['a', 2]), 'item 1 must be a string; got 2');
    assert.equal(schemaProblem({ type: 'boolean' }, 'true'), 'must be true or false; got "true"');
  });
});

describe('mcp: the session folder per workspace', () => {
  const dirs = useTempDirs('mcp-store');

  it('is under $XDG_STATE_HOME when it is absolute, else ~/.local/state', () => {
    assert.equal(stateHome({ XDG_STATE_HOME: '/srv/state', HOME: '/home/u' }), '/srv/state');
    assert.equal(stateHome({ XDG_STATE_HOME: 'relative/state', HOME: '/home/u' }), '/home/u/.local/state');
    assert.equal(stateHome({ HOME: '/home/u' }), '/home/u/.local/state');
  });

  it('is one folder per real path: the name for people, a hash for uniqueness', () => {
    const env = { XDG_STATE_HOME: '/srv/state' };
    const dir = defaultStoreDir('/srv/projects/my project', env);
    assert.match(dir, /^\/srv\/state\/tool-output-recall\/workspaces\/my_project-[0-9a-f]{16}$/);
    assert.equal(defaultStoreDir('/srv/projects/my project', env), dir);
    assert.notEqual(defaultStoreDir('/other/my project', env), dir);
    assert.match(defaultStoreDir('/', env), /\/workspaces\/root-[0-9a-f]{16}$/);
  });

  it('refuses a relative workspace path, which has no single real path', () => {
    assert.throws(() => defaultStoreDir('work/x'), /defaultStoreDir needs the workspace's real path \(absolute\); got "work\/x"/);
  });

  it('is the same for a workspace reached through a symlink (the server resolves it first)', async () => {
    const base = dirs.make();
    const real = path.join(base, 'real');
    mkdirSync(real);
    symlinkSync(real, path.join(base, 'link'));
    const env = { XDG_STATE_HOME: path.join(base, 'state') };
    const viaLink = (await parseOptions(['--workspace', path.join(base, 'link')], env)) as ServerOptions;
    assert.equal(viaLink.workspace, realpathSync(real));
    assert.equal(viaLink.storeDir, defaultStoreDir(realpathSync(real), env));
  });
});

describe('mcp: command line', () => {
  const dirs = useTempDirs('mcp-options');
  const parse = async (argv: string[], env: NodeJS.ProcessEnv = {}) => (await parseOptions(argv, env, dirs.make())) as ServerOptions;
  const defaults = (key: string) => settingSchema(key)?.default;

  it('defaults to the cwd as workspace, stdio, a new session and the extension defaults', async () => {
    const cwd = dirs.make();
    const options = (await parseOptions([], { HOME: '/home/u' }, cwd)) as ServerOptions;
    assert.equal(options.workspace, realpathSync(cwd));
    assert.equal(options.storeDir, defaultStoreDir(realpathSync(cwd), { HOME: '/home/u' }));
    assert.equal(options.http, undefined);
    assert.equal(options.sessionId, undefined);
    assert.deepEqual(options.settings, resolveSettings(defaults));
    assert.ok(options.settings.sensitivePatterns.includes('.env'));
  });

  it('names each limit after its setting, as a flag and as an environment variable', () => {
    assert.equal(flagFor('sessions.maxCount'), 'sessions-max-count');
    assert.equal(envFor('sessions.maxCount'), 'TOOL_OUTPUT_RECALL_SESSIONS_MAX_COUNT');
    assert.equal(flagFor('runCommand.defaultTimeoutSeconds'), 'run-command-default-timeout-seconds');
    for (const key of SERVER_SETTINGS) assert.ok(settingSchema(key), `${key} is a setting in package.json`);
  });

  it('takes limits from flags and the environment, flags first', async () => {
    const options = await parse(
      [
        '--preview-bytes',
        '4096',
        '--sessions-max-count',
        '3',
        '--read-file-page-allow-outside-workspace',
        '--sensitive-pattern',
        '*.secret',
      ],
      {
        TOOL_OUTPUT_RECALL_PREVIEW_BYTES: '8192',
        TOOL_OUTPUT_RECALL_PAGE_BYTES: '1024',
        TOOL_OUTPUT_RECALL_STORE_JOURNAL_LIMIT_BYTES: '100',
      },
    );
    assert.equal(options.settings.previewBytes, 4096);
    assert.equal(options.settings.pageBytes, 1024);
    assert.equal(options.settings.sessionsMaxCount, 3);
    assert.equal(options.settings.allowOutsideWorkspace, true);
    // The extension's clamp: a journal limit takes at least 4 KiB.
    assert.equal(options.settings.journalLimitBytes, 4096);
    assert.deepEqual(options.settings.sensitivePatterns, [...(defaults('readFilePage.sensitivePatterns') as string[]), '*.secret']);
  });

  it('serves HTTP always behind a token: the flag, a token file, the environment, else the default token file', async () => {
    const cwd = dirs.make();
    const env = { XDG_STATE_HOME: '/srv/state', TOOL_OUTPUT_RECALL_MCP_TOKEN: 'y'.repeat(20) };
    const at = async (argv: string[], environment: NodeJS.ProcessEnv) =>
      ((await parseOptions(argv, environment, cwd)) as ServerOptions).http;
    assert.deepEqual(await at(['--http', '8123', '--token', 'x'.repeat(16)], env), {
      port: 8123,
      auth: { token: 'x'.repeat(16), from: '--token' },
    });
    assert.deepEqual(await at(['--http', '0', '--token-file', 'tok'], env), { port: 0, auth: { file: path.join(cwd, 'tok') } });
    assert.deepEqual(await at(['--http', '0'], env), { port: 0, auth: { token: 'y'.repeat(20), from: 'TOOL_OUTPUT_RECALL_MCP_TOKEN' } });
    // Unset or empty (a client config's ${VAR} of an unset variable): the default file.
    for (const environment of [{ XDG_STATE_HOME: '/srv/state' }, { XDG_STATE_HOME: '/srv/state', TOOL_OUTPUT_RECALL_MCP_TOKEN: '' }]) {
      assert.deepEqual(await at(['--http', '0'], environment), { port: 0, auth: { file: '/srv/state/tool-output-recall/mcp-http-token' } });
    }
  });

  it('prints help and version', async () => {
    const help = (await parseOptions(['--help'], {})) as { help: string };
    assert.match(help.help, /--sessions-max-count N {2}\(TOOL_OUTPUT_RECALL_SESSIONS_MAX_COUNT; default 20\)/);
    assert.match(((await parseOptions(['--version'], {})) as { version: string }).version, /^\d+\.\d+\.\d+/);
  });

  it('the usage line names every option --help explains, --token and --token-file among them', async () => {
    const help = ((await parseOptions(['--help'], {})) as { help: string }).help;
    const synopsis = help.slice(0, help.indexOf('\n\n'));
    assert.match(synopsis, /^Usage: tool-output-recall-mcp /);
    assert.ok(synopsis.includes('[--http PORT [--token TOKEN | --token-file PATH]]'), synopsis);
    // The options explained below it (the limits have their own section): each is in the usage line.
    const explained = help.slice(synopsis.length, help.indexOf('\nLimits ('));
    const flags = [...new Set(explained.match(/^ {2}--[a-z-]+/gm)?.map((flag) => flag.trim()))];
    assert.deepEqual(flags, ['--workspace', '--store', '--session', '--http', '--token', '--token-file', '--sensitive-pattern', '--help']);
    for (const flag of [...flags, '--version']) assert.match(synopsis, new RegExp(`${flag}(?![a-z-])`), `${flag} in ${synopsis}`);
    for (const line of synopsis.split('\n')) assert.ok(line.length <= 100, `${line.length} columns: ${line}`);
  });

  it('--help names the tools from the registry: every one, and no other', async () => {
    const help = ((await parseOptions(['--help'], {})) as { help: string }).help;
    const listed = /Tool Output Recall tools \(([^)]*)\)/.exec(help)?.[1];
    assert.ok(listed, help);
    assert.deepEqual(listed.split(/,\s+/), [...TOOL_NAMES]);
  });

  it('refuses a bad command line with a message naming the option', async () => {
    const missing = path.join(dirs.make(), 'nope');
    const cases: [string[], NodeJS.ProcessEnv, RegExp][] = [
      [['--bogus'], {}, /^Unknown option '--bogus'/],
      [['--workspace', missing], {}, /^--workspace .*nope is not a folder\.$/],
      [['--session', '../x'], {}, /^--session "\.\.\/x" is not a session ID/],
      [['--http', 'eighty'], {}, /^--http takes a TCP port \(0-65535, 0 for any free one\); got "eighty"\.$/],
      [['--http', '70000'], {}, /^--http takes a TCP port/],
      [['--token', 'x'.repeat(16)], {}, /^--token applies only with --http/],
      [['--token-file', 'tok'], {}, /^--token-file applies only with --http \(stdio needs no token/],
      [['--http', '0', '--token', 'x'.repeat(16), '--token-file', 'tok'], {}, /^--token and --token-file name two tokens; give one\.$/],
      [['--http', '0', '--token', 'short'], {}, /^the bearer token \(--token\) must be at least 16 characters; it has 5\.$/],
      [
        ['--http', '0'],
        { TOOL_OUTPUT_RECALL_MCP_TOKEN: 'short' },
        /^the bearer token \(TOOL_OUTPUT_RECALL_MCP_TOKEN\) must be at least 16 characters; it has 5\.$/,
      ],
      [
        ['--http', '0', '--token', 'a token with spaces in it'],
        {},
        /^the bearer token \(--token\) must be printable ASCII without spaces \(it is sent in an HTTP header\)\.$/,
      ],
      [['--page-bytes', '9000'], {}, /^--page-bytes must be an integer ≥ 256 and ≤ 4096; got "9000"\.$/],
      [['--preview-bytes', '12k'], {}, /^--preview-bytes must be an integer ≥ 1024 and ≤ 1048576; got "12k"\.$/],
      [[], { TOOL_OUTPUT_RECALL_SESSIONS_MAX_COUNT: '0' }, /^TOOL_OUTPUT_RECALL_SESSIONS_MAX_COUNT must be an integer ≥ 1; got "0"\.$/],
      [[], { TOOL_OUTPUT_RECALL_READ_FILE_PAGE_ALLOW_OUTSIDE_WORKSPACE: 'maybe' }, /must be true or false; got "maybe"\.$/],
      [['--preview-bytes'], {}, /^Option '--preview-bytes <value>' argument missing/],
      [['extra'], {}, /^Unexpected argument 'extra'/],
    ];
    for (const [argv, env, expected] of cases) {
      await assert.rejects(parseOptions(argv, env, dirs.make()), (error: unknown) => {
        assert.ok(error instanceof UsageError, `${argv.join(' ')}: ${String(error)}`);
        assert.match(error.message, expected, argv.join(' '));
        return true;
      });
    }
  });
});
