// Issue 37 §1: what every hook (Claude Code, Gemini CLI, Qwen Code, Copilot CLI) puts in the model's
// context is masked whether or not its agent's server runs, and so is the copy a server retains from
// a hook. Before, with a server the tail and the notable lines reached the model raw (a PEM key at the
// end showed 23 of its 26 body lines; a ghp_ token in an ERROR line showed whole). Random secrets
// of every promised shape are placed where the context looks (ERROR lines, the last lines); the
// positive control counts how many of them lie in those places of the raw output.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { announced, geminiEvent, hookEnv, qwenEvent, readPage, runHook } from '../unit/helpers/hooks';
import { connectStdio, ensureBuilt, type StdioServer } from '../unit/helpers/mcpServer';
import { useTempDirs } from '../unit/helpers/tempDirs';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const BASE64 = `${ALNUM}+/`;

/** A small seeded generator (mulberry32): the same secrets on every run of a seed. */
function random(seed: number): (chars: string, length: number) => string {
  let state = seed;
  const next = (): number => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return (chars, length) => Array.from({ length }, () => chars[Math.floor(next() * chars.length)]).join('');
}

interface Planted {
  /** The line as the output holds it. */
  line: string;
  /** The secret part (what must never be shown); for a key, one body line. */
  values: string[];
}

/** One line per promised shape, each with fresh random values. */
function secretLines(pick: (chars: string, length: number) => string): Planted[] {
  const one = (make: (value: string) => string, value: string): Planted => ({ line: make(value), values: [value] });
  return [
    one((v) => `token ghp_${v} rejected`, pick(ALNUM, 36)),
    one((v) => `using github_pat_${v}`, pick(ALNUM, 60)),
    one((v) => `key AKIA${v} denied`, pick(UPPER, 16)),
    one((v) => `aws_secret_access_key = ${v}`, pick(BASE64, 40)),
    one((v) => `//registry.npmjs.org/:_authToken=${v}`, pick(ALNUM, 36)),
    one((v) => `publish with npm_${v}`, pick(ALNUM, 36)),
    one((v) => `slack xoxb-${v}`, pick(ALNUM, 40)),
    one((v) => `Authorization: Bearer ${v}`, pick(ALNUM, 48)),
    one((v) => `clone https://deploy:${v}@git.example.com/repo.git`, pick(ALNUM, 24)),
    one((v) => `maps AIza${v}`, pick(ALNUM, 35)),
    one((v) => `stripe sk_live_${v}`, pick(ALNUM, 32)),
    one((v) => `openai sk-proj-${v}`, pick(ALNUM, 48)),
    // Issue 37 §5's spellings: escaped JSON, GitLab, Slack app tokens.
    one((v) => `body {\\"Authorization\\":\\"Bearer ${v}\\"}`, pick(ALNUM, 40)),
    one((v) => `gitlab glpat-${v}`, pick(ALNUM, 20)),
    one((v) => `slack app xapp-1-${v}`, pick(UPPER, 30)),
  ];
}

/** About 80 KB of output: secrets in ERROR lines in the middle, a 26-line private key and a token in the last lines, the field last. */
function plantedOutput(seed: number): { text: string; values: string[]; inShownParts: number } {
  const pick = random(seed);
  const filler = (from: number, count: number) => Array.from({ length: count }, (_, i) => `step ${from + i} ok`).join('\n');
  const errors = secretLines(pick).map((planted) => ({ ...planted, line: `ERROR: deploy failed: ${planted.line}` }));
  const body = Array.from({ length: 26 }, () => pick(BASE64, 64));
  const tailToken = pick(ALNUM, 36);
  const field = `release_checksum=${pick('0123456789abcdef', 12)}`;
  const lastLines = [
    '-----BEGIN RSA PRIVATE KEY-----',
    ...body,
    '-----END RSA PRIVATE KEY-----',
    `export GITHUB_TOKEN=ghp_${tailToken}`,
    field,
  ];
  const text = [filler(0, 3000), ...errors.flatMap((e, i) => [e.line, filler(10_000 * (i + 1), 200)]), ...lastLines].join('\n') + '\n';
  const values = [...errors.flatMap((e) => e.values), ...body, tailToken];
  // The raw output's parts an unmasked context would show: its last 1536 bytes and the ERROR lines.
  const tail = Buffer.from(text).subarray(-1536).toString();
  const inShownParts = values.filter((value) => tail.includes(value) || errors.some((e) => e.values.includes(value))).length;
  return { text, values, inShownParts };
}

type HookName = 'claude' | 'gemini' | 'qwen' | 'copilot';
const HOOKS: readonly HookName[] = ['claude', 'gemini', 'qwen', 'copilot'];

/** Runs hook `name` for `text` in `tmp` (the servers' workspace and run folder); its context, or '' when it printed none. */
function contextOf(name: HookName, text: string, tmp: string, claudeConfig: string): { context: string; stderr: string } {
  let hook: { stdout: string; stderr: string };
  if (name === 'gemini' || name === 'qwen') {
    hook = runHook(
      name === 'gemini' ? 'gemini-cli-after-tool' : 'qwen-code-post-tool-use',
      (name === 'gemini' ? geminiEvent : qwenEvent)(text),
      tmp,
    );
  } else if (name === 'copilot') {
    const saved = path.join(tmp, `${Date.now()}-copilot-tool-output-${Math.random().toString(36).slice(2, 8).padEnd(6, 'x')}.txt`);
    writeFileSync(saved, text);
    const note = `Output too large to read at once (80 KB). Saved to: ${saved}\nConsider using tools like grep …\n\nPreview (first 500 chars):\n${text.slice(0, 500)}`;
    hook = runHook(
      'copilot-cli-post-tool-use',
      { sessionId: 'c0ffee', cwd: tmp, toolName: 'bash', toolArgs: { command: 'make deploy' }, toolResult: { textResultForLlm: note } },
      tmp,
    );
  } else {
    const results = path.join(claudeConfig, 'projects', '-w-proj', '827ffb4e-b3d4-4267-ab44-5863d0c16af3', 'tool-results');
    mkdirSync(results, { recursive: true });
    const saved = path.join(results, `b${Math.random().toString(36).slice(2, 10)}.txt`);
    writeFileSync(saved, text);
    const event = {
      tool_name: 'Bash',
      cwd: tmp,
      tool_response: { stdout: text.slice(0, 30_000), persistedOutputPath: saved, persistedOutputSize: Buffer.byteLength(text) },
    };
    hook = runHook('claude-code-post-tool-use', event, tmp, { CLAUDE_CONFIG_DIR: claudeConfig });
  }
  if (hook.stdout === '') return { context: '', stderr: hook.stderr };
  const output = JSON.parse(hook.stdout) as { additionalContext?: string; hookSpecificOutput?: { additionalContext: string } };
  return { context: output.additionalContext ?? output.hookSpecificOutput?.additionalContext ?? '', stderr: hook.stderr };
}

/** Every page of a retained copy, read back by outputId. */
async function wholeCopy(server: StdioServer, outputId: string): Promise<string> {
  let text = '';
  for (let offset = 0, more = true; more;) {
    const page = await readPage(server, outputId, offset);
    text += page.text;
    offset += Buffer.byteLength(page.text);
    more = page.hasMore;
  }
  return text;
}

describe('hook contexts and hook copies are masked, with and without the agent’s server (issue 37 §1)', function () {
  this.timeout(300_000);
  const dirs = useTempDirs('hook-masking');
  before(ensureBuilt);
  const totals = { tried: 0, leaked: 0, shownMasked: 0, inShownParts: 0 };
  after(() =>
    console.log(
      `    hook masking: ${totals.tried} secret values tried in contexts and copies, ${totals.leaked} leaked; ${totals.inShownParts} of them lay where a context shows output, ${totals.shownMasked} shown masked`,
    ),
  );

  for (const name of HOOKS) {
    for (const withServer of [true, false]) {
      it(`${name}${withServer ? ', its server running' : ', no server'}: no secret value in the context${withServer ? ' nor in the retained copy' : ''}; the key's body and the ERROR lines shown masked`, async () => {
        const tmp = dirs.make();
        const claudeConfig = dirs.make();
        let server: StdioServer | undefined;
        if (withServer) {
          server = await connectStdio(['--workspace', tmp, '--store', dirs.make()], 'legacy', hookEnv(tmp));
          await announced(tmp);
        }
        try {
          for (const seed of [1, 2, 3]) {
            const planted = plantedOutput(seed * 1000 + HOOKS.indexOf(name) * 10 + (withServer ? 1 : 0));
            // Positive control: the secrets lie where an unmasked context would show them.
            assert.ok(planted.inShownParts >= 30, `${planted.inShownParts} values in the parts a context shows`);
            totals.inShownParts += planted.inShownParts;
            const { context, stderr } = contextOf(name, planted.text, tmp, claudeConfig);
            const leaked = planted.values.filter((value) => context.includes(value));
            totals.tried += planted.values.length;
            totals.leaked += leaked.length;
            assert.deepEqual(leaked, [], `values shown in the ${name} context:\n${context}`);
            if (!withServer && name !== 'claude') {
              // Nothing to point at: the hook prints no context, and says why on stderr.
              assert.equal(context, '');
              assert.match(stderr, /no tool-output-recall-mcp server of this agent is running in this workspace/);
              continue;
            }
            assert.match(context, /release_checksum=[0-9a-f]{12}$/, 'the last line is shown');
            const maskedBody = context.match(/^\*{64}$/gm)?.length ?? 0;
            assert.ok(maskedBody >= 20, `${maskedBody} masked key lines in:\n${context}`);
            assert.match(context, /export GITHUB_TOKEN=ghp_\*{36}/);
            assert.match(context, /masked: \d+ secret-shaped values/);
            totals.shownMasked += maskedBody + 1;
            if (server) {
              const outputId = /outputId "(out_[0-9a-f]{24})"/.exec(context)?.[1];
              assert.ok(outputId, context);
              const copy = await wholeCopy(server, outputId);
              // Masked in place: every byte offset as in the output (Gemini CLI sends it without its last line break).
              assert.equal(Buffer.byteLength(copy), Buffer.byteLength(name === 'gemini' ? planted.text.slice(0, -1) : planted.text));
              const inCopy = planted.values.filter((value) => copy.includes(value));
              totals.tried += planted.values.length;
              totals.leaked += inCopy.length;
              assert.deepEqual(inCopy, [], 'values in the retained copy');
              assert.match(copy, /ERROR: deploy failed: token ghp_\*{36} rejected/);
            }
          }
        } finally {
          await server?.close();
        }
      });
    }
  }
});
