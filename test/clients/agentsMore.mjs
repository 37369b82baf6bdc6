// OpenCode, Kilo Code and Cline as the suite drives them (agents.mjs has the first five): where each
// reads our server's entry, the entry as docs/agents.md shows it or as Connect Other Agents writes it,
// the command line of one non-interactive turn against the scripted model, and the final answer.
// All three speak OpenAI chat completions to the scripted model (model.mjs: chatView, chatReply).
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { events } from './agents.mjs';
import { DIST_MCP, baseEnv, runGroup, scaled } from './clients.mjs';

const KEY = 'tool-output-recall';

/** Writes `file` as JSON (a fresh HOME and workspace: nothing to merge with). */
function writeJson(file, value) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
  return file;
}

/** Runs the bundled connect.ts for one agent (as agents.mjs does); returns what it wrote. */
function connect(connectJs, { workspace, home, shim, agent }) {
  const run = spawnSync(process.execPath, [connectJs, path.dirname(DIST_MCP), path.join(home, 'recall-mcp'), workspace, agent], {
    encoding: 'utf8',
    env: baseEnv({ home, shim }),
    timeout: scaled(60_000), // seconds on an idle machine
  });
  if (run.status !== 0) throw new Error(`connect ${agent} failed: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

/**
 * OpenCode and its fork Kilo Code: the scripted model as an `@ai-sdk/openai-compatible` provider in the
 * user's config (`~/.config/<app>/<app>.json`, with every tool allowed: `opencode run` has nobody to
 * ask), our server in the workspace's `<app>.json` under `"mcp"` as docs/agents.md shows it (stdio) or
 * as Connect Other Agents writes it. `<APP>_DISABLE_MODELS_FETCH` and friends keep it off the network.
 */
function openCodeLike({ name, app, agentId, envPrefix, node }) {
  return {
    name,
    stopAfterFirstRequest: true,
    configure({ how, workspace, home, connectJs, shim, modelPort }) {
      mkdirSync(workspace, { recursive: true });
      writeJson(path.join(home, '.config', app, `${app}.json`), {
        $schema: `https://${app === 'kilo' ? 'app.kilo.ai' : 'opencode.ai'}/config.json`,
        provider: {
          scripted: {
            npm: '@ai-sdk/openai-compatible',
            name: 'scripted model on 127.0.0.1',
            options: { baseURL: `http://127.0.0.1:${modelPort}/v1`, apiKey: 'scripted-model-key' },
            models: { m: { name: 'scripted' } },
          },
        },
        model: 'scripted/m',
        permission: { '*': 'allow' },
        autoupdate: false,
        share: 'disabled',
      });
      if (how === 'connect') return connect(connectJs, { workspace, home, shim, agent: agentId });
      const entry = { type: 'local', command: ['node', DIST_MCP, '--workspace', workspace], enabled: true };
      return { file: writeJson(path.join(workspace, `${app}.json`), { mcp: { [KEY]: entry } }) };
    },
    run({ prompt, workspace, home, shim, env: extraEnv = {}, limitMs, stopWhen }) {
      const env = {
        ...baseEnv({ home, shim }),
        ...extraEnv,
        [`${envPrefix}_DISABLE_MODELS_FETCH`]: '1',
        [`${envPrefix}_DISABLE_AUTOUPDATE`]: '1',
        [`${envPrefix}_DISABLE_SHARE`]: '1',
        [`${envPrefix}_DISABLE_LSP_DOWNLOAD`]: '1',
      };
      const args = ['run', '--format', 'json', prompt];
      return node
        ? runGroup(process.execPath, [this.bin, ...args], { cwd: workspace, env, limitMs, stopWhen })
        : runGroup(this.bin, args, { cwd: workspace, env, limitMs, stopWhen });
    },
    /** The last text part of its JSON events. */
    answer(stdout) {
      const text = events(stdout).findLast((event) => event.type === 'text' && typeof event.part?.text === 'string');
      return String(text?.part.text ?? '');
    },
  };
}

export const OPENCODE = openCodeLike({ name: 'OpenCode', app: 'opencode', agentId: 'opencode', envPrefix: 'OPENCODE', node: false });
export const KILO = openCodeLike({ name: 'Kilo Code', app: 'kilo', agentId: 'kilo-code', envPrefix: 'KILO', node: true });

/**
 * Cline's CLI: `cline auth -p openai-compatible …` points it at the scripted model (in the throwaway
 * HOME); our server in `~/.cline/data/settings/cline_mcp_settings.json` as docs/agents.md shows it
 * (with `"timeout": 600`, or without: `timeout: false`) or as Connect Other Agents writes it. `--yolo`
 * runs tools without asking; a turn ends with its submit_and_exit tool.
 */
export const CLINE = {
  name: 'Cline',
  stopAfterFirstRequest: true,
  configure({ how, workspace, home, connectJs, shim, modelPort, timeout = true }) {
    mkdirSync(workspace, { recursive: true });
    const auth = spawnSync(
      process.execPath,
      [this.bin, 'auth', '-p', 'openai-compatible', '-k', 'scripted-model-key', '-m', 'scripted', '-b', `http://127.0.0.1:${modelPort}/v1`],
      { encoding: 'utf8', env: baseEnv({ home, shim }), timeout: scaled(60_000), cwd: workspace },
    );
    if (auth.status !== 0) throw new Error(`cline auth failed (${auth.status ?? auth.signal}): ${auth.stderr || auth.stdout}`);
    if (how === 'connect') return connect(connectJs, { workspace, home, shim, agent: 'cline' });
    const entry = { command: 'node', args: [DIST_MCP, '--workspace', workspace], ...(timeout ? { timeout: 600 } : {}) };
    return { file: writeJson(path.join(home, '.cline', 'data', 'settings', 'cline_mcp_settings.json'), { mcpServers: { [KEY]: entry } }) };
  },
  run({ prompt, workspace, home, shim, env: extraEnv = {}, limitMs, stopWhen }) {
    const env = { ...baseEnv({ home, shim }), ...extraEnv };
    // A one-word argument is taken for a command ("Unknown command or unquoted prompt: hello").
    const text = /\s/.test(prompt) ? prompt : `${prompt}, please.`;
    return runGroup(process.execPath, [this.bin, '--json', '--yolo', text], { cwd: workspace, env, limitMs, stopWhen });
  },
  /** The text of its `run_result` event (what its submit_and_exit recorded). */
  answer(stdout) {
    return String(events(stdout).findLast((event) => event.type === 'run_result')?.text ?? '');
  },
};
