// The two CLIs as the suite drives them: where each reads our server's entry, the entry for each way
// of connecting (as docs/agents.md shows it, or as Connect Other Agents writes it), the command line that
// runs one non-interactive turn against the scripted model, and the final answer in its output.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DIST_MCP, TOKEN_ENV, baseEnv, runGroup, scaled } from './clients.mjs';

const KEY = 'tool-output-recall';

/** Runs the bundled connect.ts (the command's core code) for one agent; returns what it wrote. */
function connect(connectJs, { workspace, serverRoot, agent, env }) {
  const run = spawnSync(process.execPath, [connectJs, path.dirname(DIST_MCP), serverRoot, workspace, agent], {
    encoding: 'utf8',
    env,
    timeout: scaled(60_000), // seconds on an idle machine; ×TEST_TIME_SCALE
  });
  if (run.status !== 0) throw new Error(`connect ${agent} failed: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

export const CLAUDE = {
  name: 'Claude Code',
  /** Writes `.mcp.json` in the workspace (project scope) for `how`: stdio | http | connect. */
  configure({ how, workspace, home, url, connectJs, shim, alwaysLoad = true }) {
    mkdirSync(workspace, { recursive: true });
    const file = path.join(workspace, '.mcp.json');
    if (how === 'connect')
      return connect(connectJs, {
        workspace,
        serverRoot: path.join(home, 'recall-mcp'),
        agent: 'claude-code',
        env: baseEnv({ home, shim }),
      });
    // Claude Code expands ${VAR} in .mcp.json, so the token stays in the environment.
    // `alwaysLoad: true` (its entry schema has it): Claude Code connects the server before its first turn instead of beside it.
    const entry = {
      ...(how === 'http'
        ? { type: 'http', url, headers: { Authorization: `Bearer \${${TOKEN_ENV}}` } }
        : { command: 'node', args: [DIST_MCP] }),
      ...(alwaysLoad ? { alwaysLoad: true } : {}),
    };
    writeFileSync(file, `${JSON.stringify({ mcpServers: { [KEY]: entry } }, null, 2)}\n`);
    return { file };
  },
  run({ prompt, workspace, home, shim, modelPort, token, allowedTools = `mcp__${KEY}`, env: extraEnv = {}, limitMs }) {
    const env = {
      ...baseEnv({ home, shim }),
      ...extraEnv,
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${modelPort}`,
      ANTHROPIC_API_KEY: 'sk-scripted-model',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      ...(token ? { [TOKEN_ENV]: token } : {}),
    };
    const args = ['-p', prompt, '--output-format', 'stream-json', '--verbose', '--allowedTools', allowedTools];
    return runGroup(this.bin, args, { cwd: workspace, env, limitMs });
  },
  /** The final answer: the `result` line of stream-json. */
  answer(stdout) {
    for (const line of stdout.split('\n').reverse()) {
      try {
        const event = JSON.parse(line);
        if (event.type === 'result') return String(event.result ?? '');
      } catch {
        // not a JSON line
      }
    }
    return '';
  },
};

export const CODEX = {
  name: 'Codex',
  /** Writes `$CODEX_HOME/config.toml`: the scripted model as the provider, then our server for `how`. */
  configure({ how, workspace, codexHome, home, url, connectJs, shim, modelPort, serverArgs = [] }) {
    mkdirSync(workspace, { recursive: true });
    mkdirSync(codexHome, { recursive: true });
    const file = path.join(codexHome, 'config.toml');
    const provider = [
      'model = "scripted"',
      'model_provider = "scripted"',
      '',
      '[model_providers.scripted]',
      'name = "scripted model on 127.0.0.1"',
      `base_url = "http://127.0.0.1:${modelPort}/v1"`,
      'wire_api = "responses"',
      'env_key = "SCRIPTED_MODEL_KEY"',
      '',
    ];
    // The documented entries (docs/agents.md), word for word but for the paths.
    const entry =
      how === 'http'
        ? [`[mcp_servers.${KEY}]`, `url = "${url}"`, `bearer_token_env_var = "${TOKEN_ENV}"`]
        : [
            `[mcp_servers.${KEY}]`,
            'command = "node"',
            `args = ${JSON.stringify([DIST_MCP, ...serverArgs, '--workspace', workspace])}`,
            'tool_timeout_sec = 600',
          ];
    writeFileSync(file, [...provider, ...(how === 'connect' ? [] : entry), ''].join('\n'));
    if (how === 'connect')
      return connect(connectJs, {
        workspace,
        serverRoot: path.join(home, 'recall-mcp'),
        agent: 'codex',
        env: { ...baseEnv({ home, shim }), CODEX_HOME: codexHome },
      });
    return { file };
  },
  run({ prompt, workspace, codexHome, home, shim, token, approve = true, waitForServers = true, extra = [], limitMs }) {
    const env = {
      ...baseEnv({ home, shim }),
      CODEX_HOME: codexHome,
      SCRIPTED_MODEL_KEY: 'scripted',
      ...(token ? { [TOKEN_ENV]: token } : {}),
    };
    // `codex exec` refuses MCP tools that need approval; this lets ours run without touching the file.
    const approval = approve ? ['-c', `mcp_servers.${KEY}.default_tools_approval_mode="approve"`] : [];
    // Codex leaves out a server that has not listed its tools within 1 s (mcp_optional_startup_grace_ms);
    // 0 waits for it (up to startup_timeout_sec), so the evidence runs do not depend on the start-up race,
    // which the suite measures on its own (waitForServers: false).
    const wait = waitForServers ? ['-c', 'mcp_optional_startup_grace_ms=0'] : [];
    const args = [this.bin, 'exec', '--skip-git-repo-check', '--json', ...approval, ...wait, ...extra.flatMap((c) => ['-c', c]), prompt];
    return runGroup(process.execPath, args, { cwd: workspace, env, limitMs });
  },
  /** The final answer: the last agent_message of the JSON lines. */
  answer(stdout) {
    let text = '';
    for (const line of stdout.split('\n')) {
      try {
        const event = JSON.parse(line);
        if (event.type === 'item.completed' && event.item?.type === 'agent_message') text = event.item.text;
      } catch {
        // not a JSON line
      }
    }
    return text;
  },
};

/** Writes `file` as JSON (a fresh HOME and workspace: nothing to merge with). */
function writeJson(file, value) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
  return file;
}

/** The stdio entry (`command`, `args`) and the HTTP headers with the token left to the CLI's `${VAR}` expansion, as each CLI's `mcp add` writes them. */
const STDIO = { command: 'node', args: [DIST_MCP] };
const BEARER = { Authorization: `Bearer \${${TOKEN_ENV}}` };

/** The lines of a JSON-lines output that parse. */
export function events(stdout) {
  const out = [];
  for (const line of stdout.split('\n'))
    try {
      out.push(JSON.parse(line));
    } catch {
      // not a JSON line
    }
  return out;
}

/**
 * Gemini CLI (Gemini API). Project settings `.gemini/settings.json` hold our server exactly as `gemini
 * mcp add [-t http -H …] tool-output-recall …` writes it; the user settings pick API-key auth (without
 * it: "Invalid auth method selected.") and turn usage statistics off (offline they only fail).
 * Non-interactive runs need a trusted folder (GEMINI_CLI_TRUST_WORKSPACE=true, its documented switch
 * for headless runs) and `--yolo` for MCP tools. GEMINI_CLI_NO_RELAUNCH: no second Node process.
 */
export const GEMINI = {
  name: 'Gemini CLI',
  configure({ how, workspace, home, url, trust = false }) {
    mkdirSync(workspace, { recursive: true });
    writeJson(path.join(home, '.gemini', 'settings.json'), {
      security: { auth: { selectedType: 'gemini-api-key' } },
      privacy: { usageStatisticsEnabled: false },
    });
    const entry = { ...(how === 'http' ? { url, type: 'http', headers: BEARER } : STDIO), ...(trust ? { trust: true } : {}) };
    return { file: writeJson(path.join(workspace, '.gemini', 'settings.json'), { mcpServers: { [KEY]: entry } }) };
  },
  run({ prompt, workspace, home, shim, modelPort, token, permission = ['--yolo'], limitMs }) {
    const env = {
      ...baseEnv({ home, shim }),
      GEMINI_API_KEY: 'scripted-model-key',
      GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${modelPort}`,
      GEMINI_CLI_NO_RELAUNCH: 'true',
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
      ...(token ? { [TOKEN_ENV]: token } : {}),
    };
    const args = [this.bin, '-p', prompt, '--output-format', 'stream-json', ...permission, '--model', 'gemini-2.5-flash'];
    return runGroup(process.execPath, args, { cwd: workspace, env, limitMs });
  },
  /** The assistant's text: its `message` events (deltas) of the last turn, joined. */
  answer(stdout) {
    let text = '';
    for (const event of events(stdout)) {
      if (event.type === 'message' && event.role === 'assistant') text += event.content ?? '';
      else if (event.type === 'tool_use') text = '';
    }
    return text;
  },
};

/**
 * Qwen Code (OpenAI chat completions). Project settings `.qwen/settings.json` hold our server as `qwen
 * mcp add --scope project [-t http -H …] tool-output-recall …` writes it; OPENAI_BASE_URL, OPENAI_API_KEY
 * and OPENAI_MODEL point it at the model. `--yolo` lets MCP tools run non-interactively. Our tools
 * stay deferred behind its tool_search (as shipped), unless `alwaysLoad` adds its `alwaysLoadTools`.
 */
export const QWEN = {
  name: 'Qwen Code',
  configure({ how, workspace, home, url, alwaysLoad = false, trust = false, scope = 'project' }) {
    mkdirSync(workspace, { recursive: true });
    const entry = {
      ...(how === 'http' ? { httpUrl: url, headers: BEARER } : STDIO),
      ...(alwaysLoad ? { alwaysLoadTools: true } : {}),
      ...(trust ? { trust: true } : {}),
    };
    // `qwen mcp add` writes the user's settings by default, `--scope project` the workspace's.
    const file = path.join(scope === 'user' ? home : workspace, '.qwen', 'settings.json');
    return { file: writeJson(file, { mcpServers: { [KEY]: entry }, $version: 4 }) };
  },
  run({ prompt, workspace, home, shim, modelPort, token, permission = ['--yolo'], limitMs }) {
    const env = {
      ...baseEnv({ home, shim }),
      OPENAI_API_KEY: 'scripted-model-key',
      OPENAI_BASE_URL: `http://127.0.0.1:${modelPort}/v1`,
      OPENAI_MODEL: 'scripted',
      ...(token ? { [TOKEN_ENV]: token } : {}),
    };
    const args = [this.bin, '-p', prompt, '--output-format', 'stream-json', ...permission];
    return runGroup(process.execPath, args, { cwd: workspace, env, limitMs });
  },
  /** The `result` event, as Claude Code's stream-json. */
  answer(stdout) {
    const result = events(stdout).findLast((event) => event.type === 'result');
    return String(result?.result ?? '');
  },
};

/**
 * GitHub Copilot CLI (the Copilot SDK runtime) with a custom provider: COPILOT_OFFLINE=true and the
 * COPILOT_PROVIDER_* variables, no GitHub login. Our server in `~/.copilot/mcp-config.json` (user scope)
 * exactly as `copilot mcp add tool-output-recall -- node …` (or `--transport http --header …`) writes
 * it. `--allow-all-tools` lets tools run non-interactively.
 */
export const COPILOT = {
  name: 'Copilot CLI',
  configure({ how, workspace, home, url }) {
    mkdirSync(workspace, { recursive: true });
    const entry = how === 'http' ? { tools: ['*'], type: 'http', url, headers: BEARER } : { tools: ['*'], type: 'local', ...STDIO };
    return { file: writeJson(path.join(home, '.copilot', 'mcp-config.json'), { mcpServers: { [KEY]: entry } }) };
  },
  run({ prompt, workspace, home, shim, modelPort, token, env: extraEnv = {}, permission = ['--allow-all-tools'], limitMs }) {
    const env = {
      ...baseEnv({ home, shim }),
      ...extraEnv,
      COPILOT_OFFLINE: 'true',
      COPILOT_PROVIDER_BASE_URL: `http://127.0.0.1:${modelPort}/v1`,
      COPILOT_PROVIDER_TYPE: 'openai',
      COPILOT_PROVIDER_API_KEY: 'scripted-model-key',
      COPILOT_MODEL: 'scripted',
      // Its runtime, unpacked once by the setup (else into every run's HOME), and no update check.
      COPILOT_PKG_CACHE_HOME: this.pkgCache,
      COPILOT_AUTO_UPDATE: 'false',
      ...(token ? { [TOKEN_ENV]: token } : {}),
    };
    const args = ['-p', prompt, '--output-format', 'json', ...permission];
    return runGroup(this.bin, args, { cwd: workspace, env, limitMs });
  },
  /** The last `assistant.message` event's content. */
  answer(stdout) {
    const message = events(stdout).findLast((event) => event.type === 'assistant.message');
    return String(message?.data?.content ?? '');
  },
};
