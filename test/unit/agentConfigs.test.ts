// The merges behind "Connect Other Agents…": one server added to Claude Code's / Cursor's JSON and to
// Codex's TOML, everything else kept as written, malformed files reported and never rewritten; the
// entries each agent gets; and the diff the command shows before writing.
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import {
  AGENTS,
  AGENT_IDS,
  CONFIG_KEY,
  agentDisplayName,
  agentOfClient,
  agentTarget,
  agentTargets,
  codexHome,
  copilotHome,
  type AgentTarget,
} from '../../src/core/agents/agents';
import { mergeHook } from '../../src/core/agents/claudeHook';
import { mergeJsonServer } from '../../src/core/agents/jsonConfig';
import { unifiedDiff } from '../../src/core/agents/lineDiff';
import type { ConfigMerge } from '../../src/core/agents/merge';
import { planFiles, writePlanned } from '../../src/core/agents/plan';
import { mergeTomlServer } from '../../src/core/agents/tomlConfig';
import { clientOfRequest, knownClient, previewBytesFor, previewLinesFor } from '../../src/mcp/clients';
import { agentFolders, findAgents } from '../../src/core/agents/found';
import { useTempDirs } from './helpers/tempDirs';

/** smol-toml's tables have no prototype: compare plain copies. */
const parse = (text: string): Record<string, Record<string, unknown>> => JSON.parse(JSON.stringify(parseToml(text)));
const ENTRY = { command: 'node', args: ['/home/u/.state/mcp/tool-output-recall-mcp.js', '--workspace', '/home/u/proj'] };
const CODEX_ENTRY = { ...ENTRY, tool_timeout_sec: 600 };

function ok(merge: ConfigMerge): Extract<ConfigMerge, { ok: true }> {
  assert.ok(merge.ok, `expected a merge, got: ${merge.ok ? '' : merge.problem}`);
  return merge;
}
function problem(merge: ConfigMerge): string {
  assert.ok(!merge.ok, `expected a refusal, got ${merge.ok ? merge.text : ''}`);
  return merge.problem;
}

describe('agent configs: JSON (.mcp.json, .cursor/mcp.json)', () => {
  it('creates the file when there is none (or it is empty)', () => {
    for (const existing of [undefined, '', '  \n']) {
      const merge = ok(mergeJsonServer(existing, CONFIG_KEY, ENTRY));
      assert.equal(merge.change, 'create');
      assert.deepEqual(JSON.parse(merge.text), { mcpServers: { [CONFIG_KEY]: ENTRY } });
      assert.ok(merge.text.endsWith('}\n'));
    }
  });

  it('adds beside other servers and keys, keeping them, their order and the indentation', () => {
    const existing = `{\n    "mcpServers": {\n        "github": { "command": "gh-mcp", "env": { "TOKEN": "x" } }\n    },\n    "other": [1, 2]\n}\n`;
    const merge = ok(mergeJsonServer(existing, CONFIG_KEY, ENTRY));
    assert.equal(merge.change, 'add');
    assert.deepEqual(merge.others, ['github']);
    const parsed = JSON.parse(merge.text);
    assert.deepEqual(parsed, { mcpServers: { github: { command: 'gh-mcp', env: { TOKEN: 'x' } }, [CONFIG_KEY]: ENTRY }, other: [1, 2] });
    assert.deepEqual(Object.keys(parsed.mcpServers), ['github', CONFIG_KEY]);
    assert.match(merge.text, /^ {4}"mcpServers"/m, 'four-space indentation kept');
    assert.ok(merge.text.endsWith('\n'));
  });

  it('adds mcpServers to an object without it', () => {
    const merge = ok(mergeJsonServer('{ "$schema": "x" }', CONFIG_KEY, ENTRY));
    assert.deepEqual(JSON.parse(merge.text), { $schema: 'x', mcpServers: { [CONFIG_KEY]: ENTRY } });
    assert.ok(!merge.text.endsWith('\n'), 'no newline added to a file that had none');
  });

  it('replaces its own outdated entry in place, and leaves an identical one unchanged', () => {
    const existing = JSON.stringify({
      mcpServers: { a: { command: 'a' }, [CONFIG_KEY]: { command: 'node', args: ['/old.js'] }, z: { url: 'u' } },
    });
    const merge = ok(mergeJsonServer(existing, CONFIG_KEY, ENTRY));
    assert.equal(merge.change, 'replace');
    assert.deepEqual(Object.keys(JSON.parse(merge.text).mcpServers), ['a', CONFIG_KEY, 'z']);
    assert.deepEqual(merge.others, ['a', 'z']);
    const again = ok(mergeJsonServer(merge.text, CONFIG_KEY, ENTRY));
    assert.equal(again.change, 'unchanged');
    assert.equal(again.text, merge.text);
  });

  it('reports a malformed file with the reason, and never offers a text for it', () => {
    assert.match(problem(mergeJsonServer('{ "mcpServers": { // comment\n } }', CONFIG_KEY, ENTRY)), /^it is not valid JSON \(.+\)$/);
    assert.match(problem(mergeJsonServer('{ "mcpServers": {', CONFIG_KEY, ENTRY)), /not valid JSON/);
    assert.equal(problem(mergeJsonServer('[1, 2]', CONFIG_KEY, ENTRY)), 'it is JSON, but not an object ({ "mcpServers": { … } })');
    assert.equal(problem(mergeJsonServer('{"mcpServers": []}', CONFIG_KEY, ENTRY)), '"mcpServers" in it is not an object');
    assert.equal(problem(mergeJsonServer('{"mcpServers": "x"}', CONFIG_KEY, ENTRY)), '"mcpServers" in it is not an object');
  });
});

describe('agent configs: TOML (~/.codex/config.toml)', () => {
  const existing = [
    '# my Codex settings',
    'model = "o4-mini"',
    '',
    '[mcp_servers.github]',
    'command = "gh-mcp" # keep this comment',
    'args = ["--read-only"]',
    '',
    '[mcp_servers.github.env]',
    'TOKEN = "x"',
    '',
    '[profiles.fast]',
    'model = "o4-mini"',
    '',
  ].join('\n');

  it('creates the file with the table when there is none', () => {
    const merge = ok(mergeTomlServer(undefined, CONFIG_KEY, CODEX_ENTRY));
    assert.equal(merge.change, 'create');
    assert.deepEqual(parse(merge.text), { mcp_servers: { [CONFIG_KEY]: CODEX_ENTRY } });
    assert.match(merge.text, /^\[mcp_servers\.tool-output-recall\]\ncommand = "node"\n/);
  });

  it('appends the table, leaving every line before it as written (comments included)', () => {
    const merge = ok(mergeTomlServer(existing, CONFIG_KEY, CODEX_ENTRY));
    assert.equal(merge.change, 'add');
    assert.deepEqual(merge.others, ['github']);
    assert.ok(merge.text.startsWith(existing), 'the old text is a prefix of the new');
    const doc = parse(merge.text);
    assert.deepEqual(doc.mcp_servers[CONFIG_KEY], CODEX_ENTRY);
    assert.deepEqual(doc.mcp_servers.github, { command: 'gh-mcp', args: ['--read-only'], env: { TOKEN: 'x' } });
  });

  it('replaces its own section (and sub-tables) in place, and leaves an identical one unchanged', () => {
    const withOld = existing.replace(
      '[profiles.fast]',
      `[mcp_servers."${CONFIG_KEY}"]\ncommand = "node"\nargs = ["/old.js"]\n\n[mcp_servers.${CONFIG_KEY}.env]\nA = "1"\n\n[profiles.fast]`,
    );
    const merge = ok(mergeTomlServer(withOld, CONFIG_KEY, CODEX_ENTRY));
    assert.equal(merge.change, 'replace');
    assert.ok(!merge.text.includes('/old.js') && !merge.text.includes('A = "1"'));
    assert.ok(merge.text.includes('command = "gh-mcp" # keep this comment'));
    assert.ok(merge.text.indexOf(`[mcp_servers.${CONFIG_KEY}]`) < merge.text.indexOf('[profiles.fast]'), 'in the old place');
    const doc = parse(merge.text);
    assert.deepEqual(doc.mcp_servers[CONFIG_KEY], CODEX_ENTRY);
    assert.deepEqual(doc.profiles, { fast: { model: 'o4-mini' } });
    const again = ok(mergeTomlServer(merge.text, CONFIG_KEY, CODEX_ENTRY));
    assert.equal(again.change, 'unchanged');
    assert.equal(again.text, merge.text);
  });

  it('keeps CRLF line ends', () => {
    const merge = ok(mergeTomlServer(existing.replace(/\n/g, '\r\n'), CONFIG_KEY, CODEX_ENTRY));
    assert.ok(!/[^\r]\n/.test(merge.text), 'every line ends with CRLF');
  });

  it('reports a malformed file with its line, and forms it does not edit, never offering a text', () => {
    assert.match(
      problem(mergeTomlServer('model = "x"\n[mcp_servers\n', CONFIG_KEY, CODEX_ENTRY)),
      /^it is not valid TOML at line 2, column \d+ \(.+\)$/,
    );
    assert.equal(problem(mergeTomlServer('mcp_servers = 3\n', CONFIG_KEY, CODEX_ENTRY)), '"mcp_servers" in it is not a table');
    assert.match(
      problem(mergeTomlServer(`mcp_servers.${CONFIG_KEY}.command = "old"\n`, CONFIG_KEY, CODEX_ENTRY)),
      /in a form this command does not edit \(dotted keys or an inline table\)/,
    );
    assert.match(
      problem(mergeTomlServer(`mcp_servers = { "${CONFIG_KEY}" = { command = "old" } }\n`, CONFIG_KEY, CODEX_ENTRY)),
      /does not edit/,
    );
  });

  it('refuses an edit that would change anything else (a multi-line array whose lines start with "[")', () => {
    const tricky = `[mcp_servers.${CONFIG_KEY}]\ncommand = "old"\nargs = [\n["x"],\n]\n\n[other]\nkeep = true\n`;
    // The line `["x"],` looks like a header, so a section-wise edit would break the array: refused.
    assert.match(
      problem(mergeTomlServer(tricky, CONFIG_KEY, CODEX_ENTRY)),
      /would change more than the "mcp_servers.tool-output-recall" table/,
    );
  });
});

describe('agent configs: entries and names', () => {
  const launch = { node: 'node', launcher: '/u/.local/state/mcp/tool-output-recall-mcp.js', workspace: '/srv/proj' };

  it('gives each agent its file and entry', () => {
    const env = { HOME: '/home/u' };
    assert.deepEqual(agentTarget('claude-code', launch, env), {
      id: 'claude-code',
      name: 'Claude Code',
      file: '/srv/proj/.mcp.json',
      format: 'json',
      scope: 'workspace',
      entry: { command: 'node', args: [launch.launcher, '--workspace', '/srv/proj'], alwaysLoad: true },
    });
    assert.deepEqual(agentTarget('cursor', launch, env).entry, {
      command: 'node',
      args: [launch.launcher, '--workspace', '${workspaceFolder}'],
    });
    assert.equal(agentTarget('cursor', launch, env).file, '/srv/proj/.cursor/mcp.json');
    assert.deepEqual(agentTarget('codex', launch, env), {
      id: 'codex',
      name: 'Codex',
      file: '/home/u/.codex/config.toml',
      format: 'toml',
      scope: 'user',
      entry: { command: 'node', args: [launch.launcher, '--workspace', '/srv/proj'], tool_timeout_sec: 600 },
    });
    assert.equal(codexHome({ HOME: '/home/u', CODEX_HOME: '/etc/codex' }), '/etc/codex');
    assert.equal(codexHome({ HOME: '/home/u', CODEX_HOME: 'relative' }), '/home/u/.codex');
    const args = [launch.launcher, '--workspace', '/srv/proj'];
    assert.deepEqual(agentTarget('gemini-cli', launch, env), {
      id: 'gemini-cli',
      name: 'Gemini CLI',
      file: '/srv/proj/.gemini/settings.json',
      format: 'json',
      scope: 'workspace',
      entry: { command: 'node', args },
    });
    assert.deepEqual(agentTarget('qwen-code', launch, env), {
      id: 'qwen-code',
      name: 'Qwen Code',
      file: '/srv/proj/.qwen/settings.json',
      format: 'json',
      scope: 'workspace',
      entry: { command: 'node', args },
    });
    // Copilot CLI's own file of servers, as `copilot mcp add` writes it: global.
    assert.deepEqual(agentTarget('copilot-cli', launch, env), {
      id: 'copilot-cli',
      name: 'GitHub Copilot CLI',
      file: '/home/u/.copilot/mcp-config.json',
      format: 'json',
      scope: 'user',
      entry: { type: 'local', command: 'node', args, tools: ['*'] },
    });
    assert.equal(copilotHome({ HOME: '/home/u', COPILOT_HOME: '/etc/copilot' }), '/etc/copilot');
    assert.equal(agentTarget('copilot-cli', launch, { HOME: '/home/u', COPILOT_HOME: '/c' }).file, '/c/mcp-config.json');
    // OpenCode and Kilo Code (issue 39): the project's file, servers under "mcp", the command line one array.
    for (const [id, name, file] of [
      ['opencode', 'OpenCode', '/srv/proj/opencode.json'],
      ['kilo-code', 'Kilo Code', '/srv/proj/kilo.json'],
    ] as const) {
      assert.deepEqual(agentTarget(id, launch, env), {
        id,
        name,
        file,
        format: 'json',
        serversKey: 'mcp',
        scope: 'workspace',
        entry: { type: 'local', command: ['node', ...args], enabled: true },
      });
      // Beside the server, a plugin of ours in the project's plugins folder (openCodePlugin.ts).
      const plugin = agentTargets(id, launch, env)[1];
      assert.deepEqual(
        [plugin.file, plugin.format, plugin.scope],
        [`/srv/proj/${id === 'opencode' ? '.opencode' : '.kilo'}/plugins/tool-output-recall.js`, 'plugin', 'workspace'],
      );
      assert.match(String(plugin.entry.source), new RegExp(`"hook","${id === 'opencode' ? 'opencode' : 'kilo'}-after-tool"`));
    }
    // Cline's CLI: its global settings, with a timeout (without one it gave initialize 3 s).
    assert.deepEqual(agentTarget('cline', launch, env), {
      id: 'cline',
      name: 'Cline',
      file: '/home/u/.cline/data/settings/cline_mcp_settings.json',
      format: 'json',
      scope: 'user',
      entry: { command: 'node', args, timeout: 600 },
    });
  });

  it('writes OpenCode\'s and Kilo Code\'s entry under "mcp", keeping the rest of the file', () => {
    const entry = { type: 'local', command: ['node', '/l.js'], enabled: true };
    const created = mergeJsonServer(undefined, CONFIG_KEY, entry, 'mcp');
    assert.ok(created.ok);
    assert.deepEqual(JSON.parse(created.text), { mcp: { [CONFIG_KEY]: entry } });
    const existing = `{\n  "$schema": "https://opencode.ai/config.json",\n  "model": "x/y",\n  "mcp": { "other": { "type": "remote", "url": "https://e" } }\n}\n`;
    const merged = mergeJsonServer(existing, CONFIG_KEY, entry, 'mcp');
    assert.ok(merged.ok && merged.change === 'add');
    assert.deepEqual(merged.others, ['other']);
    assert.deepEqual(JSON.parse(merged.text), {
      $schema: 'https://opencode.ai/config.json',
      model: 'x/y',
      mcp: { other: { type: 'remote', url: 'https://e' }, [CONFIG_KEY]: entry },
    });
    const wrong = mergeJsonServer('{ "mcp": [] }', CONFIG_KEY, entry, 'mcp');
    assert.ok(!wrong.ok && wrong.problem.includes('"mcp"'));
  });

  it('names clients as people know them', () => {
    assert.equal(agentDisplayName({ name: 'claude-code' }), 'Claude Code');
    assert.equal(agentDisplayName({ name: 'codex-mcp-client' }), 'Codex');
    assert.equal(agentDisplayName({ name: 'cursor-vscode' }), 'Cursor');
    assert.equal(agentDisplayName({ name: 'gemini-cli-mcp-client' }), 'Gemini CLI');
    assert.equal(agentDisplayName({ name: 'qwen-cli-mcp-client-recall' }), 'Qwen Code', 'whatever its server key');
    assert.equal(agentDisplayName({ name: 'copilot-cli' }), 'GitHub Copilot CLI');
    assert.equal(agentDisplayName({ name: 'my-agent', title: 'My Agent' }), 'My Agent');
    assert.equal(agentDisplayName({ name: 'my-agent' }), 'my-agent');
    assert.equal(agentDisplayName({ name: 'Codex' }), 'Codex', 'by the start of the name, in any case');
  });
});

// "Connect Other Agents…" (agentTarget) and the MCP server (src/mcp/clients.ts) read one table, AGENTS;
// clients.ts keeps no list of its own, so these check the table's rows reach both sides whole.
describe('agents: one table for Connect Other Agents and the MCP server', () => {
  const launch = { node: 'node', launcher: '/u/.local/state/mcp/tool-output-recall-mcp.js', workspace: '/srv/proj' };
  const configured = { bytes: 24 * 1024, set: false };

  it('every agent Connect Other Agents configures is a client the MCP server knows, by the clientInfo name it sends', () => {
    assert.deepEqual(
      [...AGENT_IDS],
      ['claude-code', 'codex', 'cursor', 'gemini-cli', 'qwen-code', 'copilot-cli', 'opencode', 'kilo-code', 'cline'],
    );
    for (const id of AGENT_IDS) {
      const { name, clientName } = AGENTS[id];
      assert.equal(agentTarget(id, launch).name, name, id);
      assert.equal(knownClient({ name: clientName }), id, id);
      assert.equal(agentOfClient(clientName), id, `${clientName} is no other agent's`);
      assert.equal(agentDisplayName({ name: clientName }), name, id);
    }
  });

  it('every client the MCP server treats apart (named by a _meta key, or given a smaller preview) is an agent Connect configures', () => {
    for (const id of AGENT_IDS) {
      const { clientName, metaKey, previewBytes } = AGENTS[id];
      if (metaKey !== undefined) {
        const client = clientOfRequest(undefined, undefined, { _meta: { [metaKey]: {} } });
        assert.equal(knownClient(client), id, `${metaKey} names ${id}`);
      }
      const expected = previewBytes === undefined ? configured.bytes : Math.min(configured.bytes, previewBytes);
      assert.equal(previewBytesFor({ name: clientName, version: '1' }, configured), expected, id);
      assert.equal(previewBytesFor({ name: clientName, version: '1' }, { ...configured, set: true }), configured.bytes, `${id}, size set`);
    }
    // What the server did before the table was shared (test/clients/REPORT.md): Codex alone is cut, to 10 KiB.
    assert.equal(previewBytesFor({ name: 'codex-mcp-client', version: '0.171.0' }, configured), 10 * 1024);
    assert.deepEqual(clientOfRequest(undefined, undefined, { _meta: { 'x-codex-turn-metadata': {} } }), {
      name: 'codex-mcp-client',
      version: '',
    });
    // Copilot CLI's 20,480-byte cut: a 16 KiB preview (test/unit/mcpClients.test.ts measures the result).
    assert.equal(previewBytesFor({ name: 'copilot-cli', version: '1.0.102' }, configured), 16 * 1024);
    // Issue 39: OpenCode and Kilo Code cut by lines (900 a preview), Cline by JSON characters (a 3 KiB preview).
    assert.equal(previewLinesFor({ name: 'opencode', version: '1.18.33' }), 900);
    assert.equal(previewLinesFor({ name: 'kilo', version: '7.7.9' }), 900);
    assert.equal(previewBytesFor({ name: 'opencode', version: '1.18.33' }, configured), configured.bytes);
    assert.equal(previewBytesFor({ name: '@cline/core', version: '3.0.65' }, configured), 3 * 1024);
    assert.equal(previewLinesFor({ name: '@cline/core', version: '3.0.65' }), undefined);
    assert.equal(previewLinesFor({ name: 'my-agent', version: '1' }), undefined);
    assert.equal(knownClient({ name: 'my-agent' }), undefined);
    assert.equal(previewBytesFor({ name: 'my-agent', version: '1' }, configured), configured.bytes);
    assert.equal(clientOfRequest(undefined, undefined, { _meta: { other: 1 } }), undefined);
  });
});

describe('agents: Qwen Code is known whatever key its settings give the server', () => {
  it("knows qwen-cli-mcp-client-<key> by the name's exact start, for the key Connect writes and any other", () => {
    assert.equal(AGENTS['qwen-code'].clientName, 'qwen-cli-mcp-client-tool-output-recall', 'what Qwen Code sends for our entry');
    for (const name of ['qwen-cli-mcp-client-tool-output-recall', 'qwen-cli-mcp-client-recall', 'qwen-cli-mcp-client-']) {
      assert.equal(knownClient({ name }), 'qwen-code', name);
      assert.equal(knownClient(clientOfRequest({ name, version: '0.0.1' }, undefined, undefined)), 'qwen-code', name);
    }
    // In the 2026-07-28 envelope too, and not a name that only looks alike.
    const envelope = { 'io.modelcontextprotocol/clientInfo': { name: 'qwen-cli-mcp-client-x', version: '0.0.1' } };
    assert.equal(knownClient(clientOfRequest(undefined, envelope, undefined)), 'qwen-code');
    assert.equal(knownClient({ name: 'qwen-cli-mcp-clientx' }), undefined);
    assert.equal(knownClient({ name: 'Qwen-CLI-MCP-Client-x' }), undefined, 'exact, as the server matches every clientName');
  });
});

describe('agent configs: the hooks of Gemini CLI, Qwen Code and Copilot CLI', () => {
  const launch = { node: 'node', launcher: '/u/.local/state/mcp/tool-output-recall-mcp.js', workspace: '/srv/proj' };
  const command = (name: string) => `node /u/.local/state/mcp/tool-output-recall-mcp.js hook ${name}`;
  const hookOf = (id: 'gemini-cli' | 'qwen-code' | 'copilot-cli'): AgentTarget => {
    const targets = agentTargets(id, launch, { HOME: '/home/u' });
    assert.equal(targets.length, 2, id);
    return targets[1];
  };
  const merged = (target: AgentTarget, existing: string | undefined) => ok(mergeHook(existing, target.hook!, target.entry));

  it('each agent gets its server and its hook, in the files and formats its CLI reads', () => {
    const gemini = hookOf('gemini-cli');
    assert.deepEqual([gemini.file, gemini.format, gemini.scope], ['/srv/proj/.gemini/settings.json', 'hook', 'workspace']);
    // Gemini's timeout is in milliseconds.
    assert.deepEqual(JSON.parse(merged(gemini, undefined).text), {
      hooks: {
        AfterTool: [
          {
            matcher: 'run_shell_command',
            hooks: [{ type: 'command', command: command('gemini-cli-after-tool'), name: 'tool-output-recall', timeout: 60000 }],
          },
        ],
      },
    });
    const qwen = hookOf('qwen-code');
    assert.deepEqual([qwen.file, qwen.format, qwen.scope], ['/srv/proj/.qwen/settings.json', 'hook', 'workspace']);
    // Qwen's in seconds.
    assert.deepEqual(JSON.parse(merged(qwen, undefined).text), {
      hooks: {
        PostToolUse: [
          {
            matcher: '^run_shell_command$',
            hooks: [{ type: 'command', command: command('qwen-code-post-tool-use'), name: 'tool-output-recall', timeout: 60 }],
          },
        ],
      },
    });
    // Copilot CLI's native format, in a file of ours in the repository; its server entry stays global.
    const copilot = hookOf('copilot-cli');
    assert.deepEqual(
      [copilot.file, copilot.format, copilot.scope],
      ['/srv/proj/.github/hooks/tool-output-recall.json', 'hook', 'workspace'],
    );
    const text = merged(copilot, undefined).text;
    assert.deepEqual(JSON.parse(text), {
      version: 1,
      hooks: { postToolUse: [{ type: 'command', bash: command('copilot-cli-post-tool-use'), timeoutSec: 60 }] },
    });
    assert.ok(text.startsWith('{\n  "version": 1,'), text);
    assert.equal(agentTargets('codex', launch).length, 1, 'Codex gets no hook');
  });

  it('keeps every other key, event and hook in place, replaces only its own, and is unchanged when equal', () => {
    const gemini = hookOf('gemini-cli');
    const theirs = { matcher: 'write_file', hooks: [{ type: 'command', command: 'prettier --write', name: 'fmt' }] };
    const existing = `${JSON.stringify(
      {
        mcpServers: { github: { command: 'gh-mcp' } },
        hooks: { BeforeTool: [{ matcher: '*', hooks: [{ type: 'command', command: 'audit' }] }], AfterTool: [theirs] },
        security: { folderTrust: { enabled: true } },
      },
      null,
      4,
    )}\n`;
    const added = merged(gemini, existing);
    assert.equal(added.change, 'add');
    assert.deepEqual(added.others, ['BeforeTool', 'AfterTool write_file']);
    const parsed = JSON.parse(added.text);
    assert.deepEqual(Object.keys(parsed), ['mcpServers', 'hooks', 'security']);
    assert.deepEqual(parsed.hooks.AfterTool, [theirs, gemini.entry], 'ours goes last');
    assert.match(added.text, /^ {4}"hooks"/m, 'four-space indentation kept');
    // An older entry of ours (another launcher path, another timeout) is replaced where it is.
    const old = JSON.stringify({
      hooks: {
        AfterTool: [
          { matcher: 'run_shell_command', hooks: [{ type: 'command', command: "node '/old dir/l.js' hook gemini-cli-after-tool" }] },
          theirs,
        ],
      },
    });
    const replaced = merged(gemini, old);
    assert.equal(replaced.change, 'replace');
    assert.deepEqual(JSON.parse(replaced.text).hooks.AfterTool, [gemini.entry, theirs]);
    assert.equal(merged(gemini, replaced.text).change, 'unchanged');
    // Copilot CLI: our entry is a hook itself, found by its bash command; a file without "version" gets it.
    const copilot = hookOf('copilot-cli');
    const other = { type: 'command', bash: './lint.sh', timeoutSec: 30 };
    const withOther = merged(copilot, JSON.stringify({ hooks: { postToolUse: [other], sessionStart: [] } }));
    assert.deepEqual(JSON.parse(withOther.text), { version: 1, hooks: { postToolUse: [other, copilot.entry], sessionStart: [] } });
    assert.deepEqual(withOther.others, ['sessionStart', 'postToolUse *']);
    const stale = { type: 'command', bash: 'node /x.js hook copilot-cli-post-tool-use', timeoutSec: 5 };
    const again = merged(copilot, JSON.stringify({ version: 1, hooks: { postToolUse: [stale, other] } }));
    assert.equal(again.change, 'replace');
    assert.deepEqual(JSON.parse(again.text).hooks.postToolUse, [copilot.entry, other]);
  });

  it('reports a malformed file, never offering a text for it', () => {
    const qwen = hookOf('qwen-code');
    assert.match(problem(mergeHook('{ "hooks": ', qwen.hook!, qwen.entry)), /^it is not valid JSON \(.+\)$/);
    assert.equal(problem(mergeHook('{"hooks": []}', qwen.hook!, qwen.entry)), '"hooks" in it is not an object');
    assert.equal(problem(mergeHook('{"hooks": {"PostToolUse": {}}}', qwen.hook!, qwen.entry)), '"hooks.PostToolUse" in it is not a list');
    const copilot = hookOf('copilot-cli');
    assert.equal(
      problem(mergeHook('{"hooks": {"postToolUse": 1}}', copilot.hook!, copilot.entry)),
      '"hooks.postToolUse" in it is not a list',
    );
  });

  describe('written', () => {
    const dirs = useTempDirs('agent-hooks');

    it("Gemini CLI's settings.json gets its server and its hook, one after the other; a malformed one is left alone for both", async () => {
      const workspace = await fs.realpath(dirs.make());
      const file = path.join(workspace, '.gemini', 'settings.json');
      await fs.mkdir(path.dirname(file));
      await fs.writeFile(file, `${JSON.stringify({ theme: 'dark', mcpServers: { other: { command: 'o' } } }, null, 2)}\n`);
      const targets = agentTargets('gemini-cli', { ...launch, workspace });
      const planned = await planFiles(targets);
      assert.deepEqual(
        planned.map((p) => (p.merge.ok ? p.merge.change : p.merge.problem)),
        ['add', 'add'],
      );
      assert.match(planned[1].diff, /^\+ {2}"hooks": \{$/m, 'the hook merged into what the server entry leaves');
      const outcomes = await writePlanned(planned);
      assert.deepEqual(
        outcomes.map((o) => o.outcome),
        ['written', 'written'],
      );
      const written = JSON.parse(await fs.readFile(file, 'utf8'));
      assert.deepEqual(Object.keys(written), ['theme', 'mcpServers', 'hooks']);
      assert.deepEqual(Object.keys(written.mcpServers), ['other', CONFIG_KEY]);
      assert.deepEqual(written.hooks.AfterTool, [targets[1].entry]);
      assert.deepEqual(
        (await writePlanned(await planFiles(targets))).map((o) => o.outcome),
        ['unchanged', 'unchanged'],
      );
      await fs.writeFile(file, '{ "mcpServers": ');
      const again = await writePlanned(await planFiles(targets));
      assert.deepEqual(
        again.map((o) => [o.outcome, o.outcome === 'skipped' ? /^it is not valid JSON/.test(o.why) : '']),
        [
          ['skipped', true],
          ['skipped', true],
        ],
      );
      assert.equal(await fs.readFile(file, 'utf8'), '{ "mcpServers": ', 'not overwritten');
    });

    it("Copilot CLI's global servers file and the repository's hook file, created (the global one the user's only)", async () => {
      const workspace = await fs.realpath(dirs.make());
      const home = dirs.make();
      const targets = agentTargets('copilot-cli', { ...launch, workspace }, { HOME: home });
      const outcomes = await writePlanned(await planFiles(targets));
      assert.deepEqual(
        outcomes.map((o) => [o.file, o.outcome]),
        [
          [path.join(home, '.copilot', 'mcp-config.json'), 'written'],
          [path.join(workspace, '.github', 'hooks', 'tool-output-recall.json'), 'written'],
        ],
      );
      assert.deepEqual(JSON.parse(await fs.readFile(outcomes[0].file, 'utf8')), { mcpServers: { [CONFIG_KEY]: targets[0].entry } });
      assert.equal((await fs.stat(outcomes[0].file)).mode & 0o777, 0o600);
      assert.deepEqual(JSON.parse(await fs.readFile(outcomes[1].file, 'utf8')).hooks.postToolUse, [targets[1].entry]);
    });
  });
});

describe('agent configs: the diff shown before writing', () => {
  it('is empty for equal texts, and a unified diff with context otherwise', () => {
    assert.equal(unifiedDiff('a\nb\n', 'a\nb\n', 'x', 'x'), '');
    const before = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const after = before.replace('line 6\n', 'line six\n') + 'line 21\n';
    assert.equal(
      unifiedDiff(before, after, 'a/f', 'b/f'),
      [
        '--- a/f',
        '+++ b/f',
        '@@ -3,7 +3,7 @@',
        ' line 3',
        ' line 4',
        ' line 5',
        '-line 6',
        '+line six',
        ' line 7',
        ' line 8',
        ' line 9',
        '@@ -18,3 +18,4 @@',
        ' line 18',
        ' line 19',
        ' line 20',
        '+line 21',
        '',
      ].join('\n'),
    );
  });

  it('shows a new file as all added', () => {
    assert.equal(unifiedDiff('', 'x\ny\n', '/dev/null', 'b/f'), '--- /dev/null\n+++ b/f\n@@ -0,0 +1,2 @@\n+x\n+y\n');
  });
});

describe('agents: which are on this machine (Connect checks those by default)', () => {
  const dirs = useTempDirs('agents-found');

  it('finds an agent by a command on PATH or its folder in the home folder, and no other', async () => {
    const home = dirs.make();
    const bin = dirs.make();
    await fs.mkdir(path.join(home, '.config', 'opencode'), { recursive: true });
    await fs.mkdir(path.join(home, '.cline'));
    await fs.writeFile(path.join(home, '.qwen'), 'a file, not a folder');
    await fs.writeFile(path.join(bin, 'kilo'), '#!/bin/sh\n', { mode: 0o755 });
    await fs.writeFile(path.join(bin, 'codex'), 'not executable', { mode: 0o644 });
    await fs.mkdir(path.join(bin, 'gemini'));
    const found = await findAgents({ HOME: home, PATH: bin });
    assert.deepEqual(
      [...found.entries()].sort(([a], [b]) => a.localeCompare(b)),
      [
        ['cline', { folder: path.join(home, '.cline') }],
        ['kilo-code', { command: 'kilo' }],
        ['opencode', { folder: path.join(home, '.config', 'opencode') }],
      ],
    );
    // Codex's and Copilot CLI's folders follow their variables.
    assert.deepEqual(agentFolders('codex', { HOME: home, CODEX_HOME: bin }), [bin]);
    await fs.mkdir(path.join(home, '.copilot'));
    assert.ok((await findAgents({ HOME: home, PATH: '' })).has('copilot-cli'));
    assert.ok(!(await findAgents({ HOME: home, PATH: '', COPILOT_HOME: path.join(home, 'none') })).has('copilot-cli'));
  });
});
