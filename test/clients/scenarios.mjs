// One run of a real CLI against the scripted model, and what it measured: the evidence chain (our
// three tools, decided from what the CLI sent back), the start-up race, and Claude Code's own Bash
// tool with a PostToolUse hook. Each returns plain data; run.mjs asserts and reports.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import path from 'node:path';
import initSqlJs from 'sql.js';
import { CLAUDE, CODEX, COPILOT, GEMINI, QWEN } from './agents.mjs';
import { CLINE, KILO, OPENCODE } from './agentsMore.mjs';
import { DIST_MCP, baseEnv, doorFilesLeft, makeShim, scaled, startHttpServer } from './clients.mjs';
import { evidenceReceived, mcpExchange, pairCalls, readTaps, stopOf } from './measure.mjs';
import { startModel } from './model.mjs';
import {
  HOOK_CONTEXT,
  answerScript,
  bashRecallScript,
  evidenceScript,
  hookContextIn,
  hookRecallScript,
  isOurs,
  limitProbeScript,
  lostIdScript,
  probeText,
  requestTexts,
  runOnlyScript,
  shellScript,
} from './script.mjs';

/**
 * A 20,000-line output whose last line holds a random field, with one error line in the middle (line
 * 9000, in the part a preview omits): the notable line our result must name.
 */
export function bigOutputCommand(lines = 20_000) {
  const checksum = randomBytes(6).toString('hex');
  const code = `E${randomBytes(3).toString('hex')}`;
  const notable = `ERROR: upload failed code=${code}`;
  const command = `node -e "for(let i=1;i<${lines};i++)console.log(i===9000?'${notable}':'line '+i+' '+'x'.repeat(40));console.log('checksum=${checksum}')"`;
  return { command, checksum, notable, lastLine: `checksum=${checksum}` };
}

/**
 * Whether a model request offers our tools: callable or deferred in the script's view (Copilot CLI names
 * them tool-output-recall-<tool>, Gemini CLI mcp_tool-output-recall_<tool>, Qwen Code names deferred ones
 * in a reminder), or named with the MCP prefix anywhere in the body (Codex's deferred namespace).
 */
const offersOurTools = (request) =>
  !!request.view?.callable.some(isOurs) ||
  !!request.view?.deferred.some(isOurs) ||
  /mcp__?tool[-_]output[-_]recall/.test(JSON.stringify(request.body));

export function scratchFolders(base, label) {
  mkdirSync(base, { recursive: true });
  // Not "mcp__" in a path: the CLIs put the folder in their requests, where it would read as our tools' prefix.
  const dir = mkdtempSync(path.join(base, `${label.replace(/mcp__/g, '').replace(/[^\w.-]+/g, '-')}-`));
  const folders = {
    dir,
    home: path.join(dir, 'home'),
    workspace: path.join(dir, 'ws'),
    codexHome: path.join(dir, 'codex-home'),
    taps: path.join(dir, 'taps'),
  };
  mkdirSync(folders.home, { recursive: true });
  folders.shim = makeShim(path.join(dir, 'bin'), folders.taps);
  return folders;
}

/** The files under HOME that hold our server's stderr (its "serving MCP" line), relative to HOME. */
function filesWithOurStderr(home) {
  const found = [];
  const walk = (dir, depth) => {
    if (depth > 8 || !existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full, depth + 1);
      // Not the sessions and not the installed server's code (it holds the words too).
      else if (entry.isFile() && !full.includes('tool-output-recall/workspaces') && !full.endsWith('.js'))
        try {
          if (readFileSync(full, 'utf8').includes('serving MCP')) found.push(path.relative(home, full));
        } catch {
          // unreadable: not a log
        }
    }
  };
  walk(home, 0);
  return found;
}

/**
 * How the client stopped each server process it started (a hook's runs aside: tap.mjs records those
 * too), and the door's files each left behind (none may be).
 */
export function serverStops(taps, run) {
  return taps
    .filter((tap) => tap.pid && !tap.argv.includes('hook'))
    .map((tap) => ({ pid: tap.pid, ...stopOf(tap, run.signalledAt), doorLeft: doorFilesLeft(tap.pid) }));
}

/**
 * The evidence chain with one CLI and one way of connecting (stdio | http | connect). `codexConfig`:
 * extra `-c` overrides for Codex (a tool-output limit); `serverArgs`: flags for our server in Codex's
 * stdio entry (a smaller preview).
 */
/** The agents by the suite's short names, each with its installed entry point (scripts/clients/setup.mjs). */
export function agentFor(cli, bins) {
  const [agent, bin] = {
    claude: [CLAUDE, bins.claude],
    codex: [CODEX, bins.codex],
    gemini: [GEMINI, bins.gemini],
    qwen: [QWEN, bins.qwen],
    copilot: [COPILOT, bins.copilot],
    opencode: [OPENCODE, bins.opencode],
    kilo: [KILO, bins.kilo],
    cline: [CLINE, bins.cline],
  }[cli];
  agent.bin = bin;
  if (cli === 'copilot') agent.pkgCache = bins.copilotPkgCache;
  return agent;
}

export async function evidenceRun({
  cli,
  how,
  scratch,
  bins,
  connectJs,
  codexConfig = [],
  serverArgs = [],
  label = how,
  configure = {},
  env = {},
  permission,
  output = bigOutputCommand(),
}) {
  const agent = agentFor(cli, bins);
  const f = scratchFolders(scratch, `${cli}-${label}`);
  const { command, checksum, notable, lastLine } = output;
  const model = await startModel(evidenceScript({ command, field: 'checksum' }));
  const token = randomBytes(24).toString('hex');
  const http =
    how === 'http'
      ? await startHttpServer({ workspace: f.workspace, store: path.join(f.dir, 'store'), tap: path.join(f.taps, 'http.jsonl'), token })
      : undefined;
  let run;
  let configured;
  try {
    configured = agent.configure({ how, ...f, url: http?.url, connectJs, modelPort: model.port, serverArgs, ...configure });
    run = await agent.run({
      prompt: 'Run the command, then find the checksum on its last line.',
      ...f,
      modelPort: model.port,
      token: http ? token : undefined,
      extra: codexConfig,
      env,
      ...(permission ? { permission } : {}),
      limitMs: 240_000,
    });
  } finally {
    await http?.stop();
    await model.close();
  }
  const taps = readTaps(f.taps);
  const tap = taps.find((t) => t.messages.length) ?? taps[0];
  const exchange = tap ? mcpExchange(tap) : { calls: [] };
  const calls = pairCalls(exchange, model.requests);
  const runCall = calls.find((c) => c.tool.endsWith('run_command'));
  const loop = model.requests.filter((r) => r.view);
  const lastView = loop.at(-1)?.view;
  writeFileSync(path.join(f.dir, 'requests.json'), JSON.stringify(model.requests));
  writeFileSync(path.join(f.dir, 'stdout.txt'), run.stdout);
  return {
    cli: agent.name,
    how: label,
    env,
    dir: f.dir,
    configured,
    exit: run.code,
    timedOut: run.timedOut,
    ms: run.ms,
    answer: agent.answer(run.stdout),
    checksum,
    serverStarted: !!tap?.spawnedAt,
    // Over stdio from the server's spawn (the client's wait); over HTTP the suite started it long before: the reply's own time.
    initialize: exchange.initialize && {
      ...exchange.initialize,
      ms: Math.round(exchange.initialize.repliedAt - (how === 'http' ? exchange.initialize.sentAt : tap.spawnedAt)),
      from: how === 'http' ? 'request' : 'spawn',
    },
    handshake: exchange.handshake,
    clientInfo: exchange.clientInfo,
    clientFrom: exchange.clientFrom,
    toolsListed: exchange.toolsListed?.names ?? [],
    toolsSeen: (lastView?.callable ?? []).filter(isOurs),
    toolSearches: (lastView?.calls ?? []).filter((c) => c.name === lastView.toolSearch).length,
    // A call of ours the client failed itself, our server never having received it (Qwen Code over HTTP:
    // "MCP tool execution may have completed before the connection failed…").
    clientLostCall: (lastView?.calls ?? [])
      .filter((c) => isOurs(c.name) && c.result && /connection failed|connection closed|ECONNRESET/i.test(c.result.text))
      .map((c) => c.result.text.slice(0, 200))
      .find((text) => text && !calls.some((sent) => sent.received === text)),
    firstRequestHadOurTools: loop[0] ? offersOurTools(loop[0]) : false,
    firstRequestSaysConnecting: loop[0] ? JSON.stringify(loop[0].body).includes('still connecting') : false,
    calls,
    evidence: runCall ? evidenceReceived(runCall.sent, runCall.received, { notable, lastLine }) : undefined,
    stderrLines: run.stderr.split('\n').filter((line) => line.trim() !== ''),
    ourStderrIn: filesWithOurStderr(f.home),
    // Over HTTP this suite started the server and stops it: no client's stop to measure.
    stops: how === 'http' ? [] : serverStops(taps, run),
  };
}

/**
 * Busy processes for the whole of a scenario: up to `perCore` × os.availableParallelism() (`count`)
 * children spinning (`node -e 'for(;;){}'`), each in its own process group, as many as the machine's
 * other work leaves to reach a load of `count`. `stop()` kills them; `load()` reads the 1-minute load
 * average; `running()` says how many spin now. `ready()` waits (polling, up to a scaled limit) until
 * that average reaches half of `count`, so the runs start under the load, not while it ramps up.
 */
export function busyProcesses({ perCore = 4 } = {}) {
  // The load the race claims (≈ perCore per core), not more: on a machine already busy with other work
  // (three test runs at once, each with its own race: load 20-26, where Codex once sent its first request
  // 1 s after our tools/list reply without our tools) it adds only what that load lacks. Adjusted every
  // few seconds as other work comes and goes.
  const count = perCore * availableParallelism();
  const children = [];
  const spawnOne = () => children.push(spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore', detached: true }));
  const killOne = () => {
    const child = children.pop();
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // gone
    }
  };
  const adjust = () => {
    // The 1-minute average lags: ours count in it only as they have run, so early on "others" reads low and we spawn up to `count`.
    // Others' load below half of `count` (the race's own CLIs, a quiet machine) leaves all `count` spinning, as the claim says.
    const others = Math.max(0, loadavg()[0] - children.length);
    const wanted = others < count / 2 ? count : Math.max(0, Math.round(count - others));
    while (children.length < wanted) spawnOne();
    while (children.length > wanted) killOne();
  };
  adjust();
  const timer = setInterval(adjust, 5000);
  const stop = () => {
    clearInterval(timer);
    while (children.length) killOne();
  };
  const ready = async () => {
    const until = Date.now() + scaled(120_000); // the 1-minute average takes about a minute to climb
    while (loadavg()[0] < count / 2 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 1000)); // a poll, not a wait for time
    return loadavg()[0];
  };
  return { count, stop, ready, load: () => loadavg()[0], running: () => children.length };
}

/** The first request of the agent's loop (Claude Code's side requests, without tools, are not it). */
const firstLoopRequest = (requests) =>
  requests.find((r) => r.view && (r.view.callable.length || r.view.toolSearch || r.view.api === 'responses'));

/**
 * Codex or Claude Code over stdio (the documented entry (docs/agents.md); Codex with its default start-up grace) started
 * `runs` times against a model that answers at once, each time asking: did the first model request
 * offer our tools? With `busy`, under busyProcesses() for the whole scenario; each row has the load
 * average when the run ended.
 */
export async function startupRace({ cli, scratch, bins, runs, busy, configure = {} }) {
  const agent = agentFor(cli, bins);
  const rows = [];
  for (let i = 0; i < runs; i++) {
    const f = scratchFolders(scratch, `${cli}-race-${i}`);
    const model = await startModel(answerScript());
    try {
      agent.configure({ how: 'stdio', ...f, modelPort: model.port, ...configure });
      // A client that is slow to exit (Kilo Code's telemetry offline) is stopped once its first model request was answered.
      const stopWhen = agent.stopAfterFirstRequest ? model.firstLoopAnswered : undefined;
      const run = await agent.run({ prompt: 'hello', ...f, modelPort: model.port, waitForServers: false, limitMs: 180_000, stopWhen });
      const taps = readTaps(f.taps);
      const tap = taps.find((t) => !t.argv.includes('hook'));
      const exchange = tap ? mcpExchange(tap) : {};
      writeFileSync(path.join(f.dir, 'requests.json'), JSON.stringify(model.requests));
      const first = firstLoopRequest(model.requests);
      const at = (t) => (t === undefined ? undefined : Math.round(t - run.started));
      rows.push({
        run: i + 1,
        exit: run.code,
        timedOut: run.timedOut,
        serverSpawnedMs: at(tap?.spawnedAt),
        initializeSentMs: at(exchange.initialize?.sentAt),
        initializeRepliedMs: at(exchange.initialize?.repliedAt),
        toolsAskedMs: at(exchange.toolsListed?.askedAt),
        toolsListedMs: at(exchange.toolsListed?.at),
        firstModelRequestMs: at(first?.at),
        firstRequestTools: first ? first.view.callable.length + first.view.deferred.length : undefined,
        ourToolsOffered: first ? offersOurTools(first) : false,
        load: busy ? busy.load() : loadavg()[0],
        // A client stopped here (stopWhen: OpenCode, Kilo Code, Cline): its servers' stops are this suite's (bySuite), reported apart.
        stops: serverStops(taps, run),
      });
    } finally {
      await model.close();
    }
    const last = rows.at(-1);
    console.log(
      `  ${cli} run ${last.run}: first model request at ${last.firstModelRequestMs ?? '–'} ms, our tools ${last.ourToolsOffered ? 'offered' : 'NOT offered'}, tools/list asked at ${last.toolsAskedMs ?? '–'} ms, replied at ${last.toolsListedMs ?? '–'} ms, load ${last.load.toFixed(1)}`,
    );
  }
  return rows;
}

/**
 * Claude Code's own Bash tool printing `megabytes` MB with a field on its last line, with a PostToolUse
 * hook that records what it receives: the size of its stdin and of tool_response's fields.
 */
export async function claudeBashHook({ scratch, bins, megabytes = 3 }) {
  CLAUDE.bin = bins.claude;
  const f = scratchFolders(scratch, 'claude-bash-hook');
  mkdirSync(f.workspace, { recursive: true });
  const { command, checksum, outputBytes } = bigBashCommand(megabytes);
  const record = path.join(f.dir, 'hook.json');
  const hook = path.join(f.dir, 'hook.cjs');
  // The hook itself: reads its whole stdin (the PostToolUse event) and writes the sizes it saw.
  writeFileSync(
    hook,
    `const chunks=[];process.stdin.on('data',c=>chunks.push(c));process.stdin.on('end',()=>{const raw=Buffer.concat(chunks).toString('utf8');const e=JSON.parse(raw);const r=e.tool_response||{};const size=v=>typeof v==='string'?Buffer.byteLength(v):v===undefined?undefined:Buffer.byteLength(JSON.stringify(v));require('fs').writeFileSync(${JSON.stringify(record)},JSON.stringify({stdinBytes:Buffer.byteLength(raw),event:e.hook_event_name,tool:e.tool_name,responseKeys:Object.keys(r),stdoutBytes:size(r.stdout),stderrBytes:size(r.stderr),stdoutHasField:typeof r.stdout==='string'&&r.stdout.includes('checksum=${checksum}'),other:Object.fromEntries(Object.entries(r).filter(([k])=>k!=='stdout'&&k!=='stderr').map(([k,v])=>[k,typeof v==='string'&&v.length>200?v.slice(0,200)+'…':v]))}));});`,
  );
  mkdirSync(path.join(f.workspace, '.claude'), { recursive: true });
  writeFileSync(
    path.join(f.workspace, '.claude', 'settings.json'),
    JSON.stringify({ hooks: { PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `node ${hook}` }] }] } }, null, 2),
  );
  const model = await startModel(shellScript({ tool: 'Bash', input: { command, description: 'Print a large output' }, field: 'checksum' }));
  let run;
  try {
    run = await CLAUDE.run({
      prompt: 'Run the command and tell me the checksum.',
      ...f,
      modelPort: model.port,
      allowedTools: 'Bash',
      limitMs: 240_000,
    });
  } finally {
    await model.close();
  }
  const bash = model.requests
    .filter((r) => r.view)
    .at(-1)
    ?.view.calls.find((c) => c.name === 'Bash');
  const received = bash?.result?.text ?? '';
  return {
    exit: run.code,
    checksum,
    outputBytes,
    hook: existsSync(record) ? JSON.parse(readFileSync(record, 'utf8')) : undefined,
    modelReceivedBytes: Buffer.byteLength(received),
    modelReceivedField: received.includes(`checksum=${checksum}`),
    modelReceivedSavedPath: /\/[^\s"<>]+\.(txt|log|out)/.exec(received)?.[0],
    modelReceivedHead: received.slice(0, 300),
    answer: CLAUDE.answer(run.stdout),
  };
}

/** A command printing about `megabytes` MB of 100-byte lines, then a line with a random field. */
function bigBashCommand(megabytes) {
  const checksum = randomBytes(6).toString('hex');
  const lines = Math.round((megabytes * 1024 * 1024) / 100);
  const command = `node -e "const l='y'.repeat(90);for(let i=0;i<${lines};i++)console.log(String(i).padStart(8,'0')+' '+l);console.log('checksum=${checksum}')"`;
  return { command, checksum, outputBytes: lines * 100 + `checksum=${checksum}\n`.length };
}

/**
 * Claude Code's own Bash printing `megabytes` MB with a field on its last line, configured as
 * Connect Other Agents writes it (the server in .mcp.json, our PostToolUse hook in
 * .claude/settings.json): the model gets our hook's context after the Bash call and reaches the
 * field with search_tool_output {path} and read_file_page (bashRecallScript). `configDir`: run with
 * CLAUDE_CONFIG_DIR set there (where Claude Code then saves the output, and where we read it).
 */
export async function claudeBashRecall({ scratch, bins, connectJs, megabytes = 3, configDir = false }) {
  CLAUDE.bin = bins.claude;
  const f = scratchFolders(scratch, `claude-bash-recall${configDir ? '-config-dir' : ''}`);
  const configured = CLAUDE.configure({ how: 'connect', ...f, connectJs });
  const { command, checksum, outputBytes } = bigBashCommand(megabytes);
  const config = configDir ? path.join(f.dir, 'claude-config') : undefined;
  const model = await startModel(bashRecallScript({ command, field: 'checksum' }));
  let run;
  try {
    run = await CLAUDE.run({
      prompt: 'Run the command and tell me the checksum on its last line.',
      ...f,
      modelPort: model.port,
      allowedTools: 'Bash,mcp__tool-output-recall',
      env: config ? { CLAUDE_CONFIG_DIR: config } : {},
      limitMs: 240_000,
    });
  } finally {
    await model.close();
  }
  writeFileSync(path.join(f.dir, 'requests.json'), JSON.stringify(model.requests));
  const loop = model.requests.filter((r) => r.view);
  const last = loop.at(-1)?.view;
  const calls = last?.calls ?? [];
  const bashAt = loop.findIndex((r) => r.view.calls.some((c) => c.name === 'Bash' && c.result));
  const context = bashAt < 0 ? undefined : requestTexts(loop[bashAt].body).find((text) => text.includes(HOOK_CONTEXT));
  const saved = context && /saved to (\S+) \(/.exec(context)?.[1];
  // Or our server retained the output itself: "retained as outputId "out_…" (all N bytes; …)".
  const retained = context && /retained as outputId "(out_[0-9a-z]+)" \((?:all )?(\d+) bytes(; \d+ bytes were dropped)?/.exec(context);
  const bash = calls.find((c) => c.name === 'Bash');
  return {
    exit: run.code,
    timedOut: run.timedOut,
    configDir: !!config,
    configured,
    checksum,
    outputBytes,
    bashCalls: calls.filter((c) => c.name === 'Bash').length,
    modelReceivedBytes: Buffer.byteLength(bash?.result?.text ?? ''),
    context,
    contextBytes: context === undefined ? undefined : Buffer.byteLength(context),
    savedPath: saved,
    savedUnder:
      saved &&
      (config
        ? saved.startsWith(`${config}/projects/`)
          ? 'CLAUDE_CONFIG_DIR/projects'
          : saved
        : saved.startsWith(`${f.home}/.claude/projects/`)
          ? '~/.claude/projects'
          : saved),
    savedRelative: saved && path.relative(config ?? path.join(f.home, '.claude'), saved),
    savedBytes: saved && existsSync(saved) ? statSync(saved).size : undefined,
    retained: retained ? { outputId: retained[1], bytes: Number(retained[2]), complete: !retained[3] } : undefined,
    ourCalls: calls
      .filter((c) => isOurs(c.name))
      .map((c) => ({ tool: c.name, input: c.input, isError: !!c.result?.isError, bytes: Buffer.byteLength(c.result?.text ?? '') })),
    answer: CLAUDE.answer(run.stdout),
    stderr: run.stderr.slice(0, 2000),
  };
}

/** Spawn → initialize reply of dist/mcp.js over stdio, beside spawn → exit of `node -e 0`, `runs` times each. */
export async function spawnToInitialize({ scratch, runs }) {
  const f = scratchFolders(scratch, 'spawn');
  mkdirSync(f.workspace, { recursive: true });
  const once = (args, untilReply) =>
    new Promise((resolve, reject) => {
      const started = performance.now();
      const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'ignore'], env: { ...process.env, HOME: f.home } });
      let out = '';
      let replied;
      const timer = setTimeout(() => child.kill('SIGKILL'), scaled(60_000)); // only for a child that never ends
      child.stdout.on('data', (chunk) => {
        out += chunk;
        if (untilReply && replied === undefined && out.includes('"id":1')) {
          replied = performance.now() - started;
          child.stdin.end();
        }
      });
      child.on('error', reject);
      child.on('exit', () => {
        clearTimeout(timer);
        resolve(untilReply ? replied : performance.now() - started);
      });
      if (untilReply)
        child.stdin.write(
          `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'spawn-bench', version: '1' } } })}\n`,
        );
      else child.stdin.end();
    });
  const server = [];
  const bare = [];
  for (let i = 0; i < runs; i++) {
    bare.push(await once(['-e', '0'], false));
    server.push(await once([DIST_MCP, '--workspace', f.workspace, '--store', path.join(f.dir, 'store')], true));
  }
  return { server, bare };
}

/**
 * Copilot CLI's cut, measured: the stub server (stub-server.mjs) configured as `copilot mcp add
 * size-probe -- node stub-server.mjs` writes it, and the scripted model's binary search
 * (limitProbeScript) for the largest text block the model gets whole. Also what it gets instead (the
 * note, the preview's length) and whether the saved file outlives the CLI. `env`: extra variables
 * (COPILOT_LARGE_OUTPUT_THRESHOLD_BYTES).
 */
export async function copilotLimit({ scratch, bins, env = {}, lo, hi, label = 'copilot-limit' }) {
  const agent = agentFor('copilot', bins);
  const f = scratchFolders(scratch, label);
  mkdirSync(f.workspace, { recursive: true });
  const stub = path.join(path.dirname(new URL(import.meta.url).pathname), 'stub-server.mjs');
  const config = { mcpServers: { 'size-probe': { tools: ['*'], type: 'local', command: 'node', args: [stub] } } };
  mkdirSync(path.join(f.home, '.copilot'), { recursive: true });
  writeFileSync(path.join(f.home, '.copilot', 'mcp-config.json'), `${JSON.stringify(config, null, 2)}\n`);
  const model = await startModel(limitProbeScript({ lo, hi }));
  let run;
  try {
    run = await agent.run({ prompt: 'Find the largest output you receive whole.', ...f, modelPort: model.port, env, limitMs: 300_000 });
  } finally {
    await model.close();
  }
  writeFileSync(path.join(f.dir, 'requests.json'), JSON.stringify(model.requests));
  const calls = (model.requests.filter((r) => r.view).at(-1)?.view.calls ?? []).filter((c) => c.name.endsWith('emit') && c.result);
  const answer = agent.answer(run.stdout);
  let found;
  try {
    found = JSON.parse(answer);
  } catch {
    found = undefined;
  }
  // The first cut: what the model got instead of the text.
  const cut = calls.find((c) => !c.input.char && !c.result.text.includes(probeText(c.input.bytes)));
  const note = cut?.result.text ?? '';
  const preview = /Preview \(first (\d+) chars\):\n([\s\S]*)$/.exec(note);
  const saved = /Saved to: (\S+)/.exec(note)?.[1];
  return {
    exit: run.code,
    timedOut: run.timedOut,
    answer,
    found,
    probes: calls.map((c) => ({
      bytes: c.input.bytes,
      char: c.input.char,
      whole: c.result.text.includes(probeText(c.input.bytes, c.input.char)),
    })),
    cutSentBytes: cut?.input.bytes,
    noteBytes: Buffer.byteLength(note),
    noteHead: note.slice(0, preview ? note.indexOf(preview[0]) + `Preview (first ${preview[1]} chars):`.length : 400),
    previewChars: preview ? [...preview[2]].length : undefined,
    previewSaid: preview ? Number(preview[1]) : undefined,
    savedPath: saved,
    savedExistsAfterExit: saved ? existsSync(saved) : undefined,
    stderr: run.stderr.slice(0, 1000),
  };
}

/**
 * A command printing about `megabytes` MB of 100-byte lines with a random field on one line (the last,
 * or the middle one: `fieldAt`), appending a character to `countFile` each time it runs. The field is
 * written `check'+'sum=…` in the command, so only its output holds "checksum=<value>".
 */
export function bigShellCommand(megabytes, { fieldAt = 'end', countFile }) {
  const checksum = randomBytes(6).toString('hex');
  const lines = Math.round((megabytes * 1024 * 1024) / 100);
  const middle = fieldAt === 'middle' ? Math.floor(lines / 2) : -1;
  const field = `console.log('check'+'sum=${checksum}')`;
  const command = `node -e "require('fs').appendFileSync('${countFile}','x');const l='y'.repeat(90);for(let i=0;i<${lines};i++){if(i===${middle})${field};console.log(String(i).padStart(8,'0')+' '+l)}${fieldAt === 'end' ? field : ''}"`;
  return { command, checksum, outputBytes: lines * 100 + `checksum=${checksum}\n`.length };
}

/** The output `outputId` as our server's session files under `dir` hold it ({ tool, bytes, complete, session }), or undefined. */
async function retainedInSessions(dir, outputId) {
  const SQL = await initSqlJs();
  const files = existsSync(dir) ? readdirSync(dir, { recursive: true }).filter((name) => String(name).endsWith('.sqlite')) : [];
  for (const name of files) {
    const db = new SQL.Database(readFileSync(path.join(dir, String(name))));
    try {
      const row = db.exec('SELECT tool, total_bytes, complete FROM outputs WHERE id = ?', [outputId])[0]?.values[0];
      if (row) return { tool: row[0], bytes: row[1], complete: row[2] === 1, session: path.basename(String(name)) };
    } finally {
      db.close();
    }
  }
  return undefined;
}

/**
 * What the model got for its one `tool` call when our post-tool hook (or OpenCode's and Kilo Code's
 * plugin) added a context, read from the scripted model's requests (`loop`): the agent's own cut (the
 * shell result without our context), the context, the outputId it names and that output as our
 * server's session under `home` holds it, and the calls of our tools after it.
 */
export async function hookFindings({ loop, tool, home, checksum }) {
  const calls = loop.at(-1)?.view.calls ?? [];
  const shell = calls.find((c) => c.name === tool);
  // The first request after the shell call: what the model got for it, and our hook's context.
  const after = loop.find((r) => r.view.calls.some((c) => c.name === tool && c.result));
  const found = after ? hookContextIn(after.body) : undefined;
  const resultText = shell?.result?.text ?? '';
  // The agent's own cut: the shell result without our context (and the tag a client wraps it in).
  const cut =
    found && resultText.includes(found.context)
      ? resultText.slice(0, resultText.indexOf(found.context)).replace(/(<hook_context>|&lt;hook_context&gt;)\s*$/, '')
      : resultText;
  const outputId = found && /retained as outputId "(out_[0-9a-z]+)"/.exec(found.context)?.[1];
  // The session our server kept it in (its default store under HOME): the output under that outputId, and its size.
  const retained = outputId ? await retainedInSessions(path.join(home, '.local', 'state', 'tool-output-recall'), outputId) : undefined;
  return {
    cut,
    shellCalls: calls.filter((c) => c.name === tool).length,
    cutBytes: Buffer.byteLength(cut),
    cutHasField: cut.includes(`checksum=${checksum}`),
    context: found?.context,
    contextBytes: found ? Buffer.byteLength(found.context) : undefined,
    contextWhere: found ? (found.holder === resultText ? 'in the shell result' : 'in a message of its own') : undefined,
    contextHasField: !!found?.context.includes(`checksum=${checksum}`),
    outputId,
    retained,
    ourCalls: calls
      .filter((c) => isOurs(c.name))
      .map((c) => ({ tool: c.name, input: c.input, isError: !!c.result?.isError, bytes: Buffer.byteLength(c.result?.text ?? '') })),
  };
}

/** Each agent's own shell tool, the input its model sends, and the agent Connect Other Agents configures. */
const HOOKED = {
  gemini: { agent: 'gemini-cli', tool: 'run_shell_command', input: (command) => ({ command }) },
  qwen: { agent: 'qwen-code', tool: 'run_shell_command', input: (command) => ({ command }) },
  copilot: { agent: 'copilot-cli', tool: 'bash', input: (command) => ({ command, description: 'Print a large output', mode: 'sync' }) },
};
export const HOOKED_CLIS = Object.keys(HOOKED);

/**
 * Gemini CLI, Qwen Code or Copilot CLI configured exactly as Connect Other Agents writes it (the bundled
 * connect core: the server's entry and the agent's post-tool hook), in the conditions each needs for
 * project hooks to run: Gemini a trusted folder (GEMINI_CLI_TRUST_WORKSPACE=true, as every Gemini run
 * here), Qwen `--yolo` (folder trust off by default), Copilot a Git repository whose folder is in
 * `trustedFolders` of ~/.copilot/config.json. The agent's own shell tool prints `megabytes` MB with a
 * field on its last (or middle) line; hookRecallScript decides from what the model got.
 */
export async function hookRecall({ cli, scratch, bins, connectJs, megabytes = 3, fieldAt = 'end' }) {
  const agent = agentFor(cli, bins);
  const hooked = HOOKED[cli];
  const f = scratchFolders(scratch, `${cli}-hook-${fieldAt}`);
  mkdirSync(f.workspace, { recursive: true });
  const countFile = path.join(f.dir, 'runs.txt');
  const { command, checksum, outputBytes } = bigShellCommand(megabytes, { fieldAt, countFile });
  // The user's settings for Gemini: API-key auth and no usage statistics (as GEMINI.configure writes them).
  if (cli === 'gemini') {
    mkdirSync(path.join(f.home, '.gemini'), { recursive: true });
    const settings = { security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false } };
    writeFileSync(path.join(f.home, '.gemini', 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
  }
  if (cli === 'copilot') {
    const git = spawnSync('git', ['init', '-q', f.workspace], { encoding: 'utf8' });
    if (git.status !== 0) throw new Error(`git init: ${git.stderr}`);
    mkdirSync(path.join(f.home, '.copilot'), { recursive: true });
    writeFileSync(path.join(f.home, '.copilot', 'config.json'), `${JSON.stringify({ trustedFolders: [f.workspace] }, null, 2)}\n`);
  }
  const env = { ...baseEnv({ home: f.home, shim: f.shim }) };
  const connect = spawnSync(
    process.execPath,
    [connectJs, path.dirname(DIST_MCP), path.join(f.home, 'recall-mcp'), f.workspace, hooked.agent],
    {
      encoding: 'utf8',
      env,
      timeout: scaled(60_000), // seconds on an idle machine
    },
  );
  if (connect.status !== 0) throw new Error(`connect ${hooked.agent} failed: ${connect.stderr}`);
  const configured = JSON.parse(connect.stdout);
  const model = await startModel(hookRecallScript({ tool: hooked.tool, input: hooked.input(command), field: 'checksum' }));
  let run;
  try {
    run = await agent.run({ prompt: 'Run the command and tell me the checksum it prints.', ...f, modelPort: model.port, limitMs: 300_000 });
  } finally {
    await model.close();
  }
  writeFileSync(path.join(f.dir, 'requests.json'), JSON.stringify(model.requests));
  writeFileSync(path.join(f.dir, 'stdout.txt'), run.stdout);
  const loop = model.requests.filter((r) => r.view);
  const { cut, ...found } = await hookFindings({ loop, tool: hooked.tool, home: f.home, checksum });
  const taps = readTaps(f.taps);
  return {
    cli: agent.name,
    agent: hooked.agent,
    tool: hooked.tool,
    fieldAt,
    exit: run.code,
    timedOut: run.timedOut,
    ms: run.ms,
    configured,
    checksum,
    outputBytes,
    commandRuns: existsSync(countFile) ? readFileSync(countFile, 'utf8').length : 0,
    ...found,
    serverStarted: taps.some((t) => !t.argv.includes('hook') && t.messages.length),
    hookRuns: taps.filter((t) => t.argv.includes('hook')).length,
    // What the scripted model answered last (it decides from what reached it), and what the CLI printed as the answer.
    modelAnswer: loop.at(-1)?.turn?.kind === 'final' ? loop.at(-1).turn.text : '',
    answer: agent.answer(run.stdout),
    stderr: run.stderr.slice(0, 2000),
    dir: f.dir,
  };
}

/**
 * Issue 38: an output one agent ran is found by another that never saw its outputId. `first` runs the
 * big command through our run_command (its server's session); then `second`, a new process with a new
 * session in the same workspace, is asked for the field and searches every session's outputs. Returns
 * what the second model sent and received, and its answer.
 */
export async function lostIdRun({ first, second, scratch, bins, connectJs }) {
  const f = scratchFolders(scratch, `lost-id-${first}-${second}`);
  const { command, checksum } = bigOutputCommand();
  const runAgent = async (cli, script, prompt) => {
    const agent = agentFor(cli, bins);
    const model = await startModel(script);
    try {
      agent.configure({ how: 'stdio', ...f, connectJs, modelPort: model.port });
      const run = await agent.run({ prompt, ...f, modelPort: model.port, limitMs: 240_000 });
      return { agent, model, run };
    } finally {
      await model.close();
    }
  };
  const one = await runAgent(first, runOnlyScript({ command }), 'Run the command.');
  const two = await runAgent(second, lostIdScript({ field: 'checksum' }), 'An earlier run printed a checksum; find it.');
  const calls = two.model.requests
    .map((request) => request.view)
    .filter(Boolean)
    .at(-1)
    ?.calls.filter((c) => isOurs(c.name))
    .map((c) => ({ tool: c.name, input: c.input, received: c.result?.text ?? '' }));
  return {
    first: one.agent.name,
    second: two.agent.name,
    firstRan: one.model.requests.some((request) => request.view?.calls.some((c) => c.name.endsWith('run_command') && c.result)),
    answer: two.agent.answer(two.run.stdout),
    checksum,
    calls: calls ?? [],
    exit: two.run.code,
  };
}
