// The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in package.json)
// against `node dist/mcp.js --http 0`: every scenario of its active server suite runs, offline (the
// suite only talks to the local server). The suite needs Node ≥ 22, so it runs under the Node 24
// the host harness installs (scripts/host/setup.mjs; a no-op after the host suite ran).
//
// Each scenario is either REQUIRED (must pass: every check SUCCESS) or EXCLUDED with its reason. An
// excluded scenario that starts passing, or a scenario in neither list (a new suite version), fails
// the run, so the lists stay true. Prints one line per scenario; writes the counts for npm test to
// $TOR_RESULTS_FILE (one test per required scenario, plus one per stale or unknown scenario).
//
// The server refuses every HTTP request without its bearer token, and the suite's client has no
// option to send one; so the suite talks to a forwarder that adds the token and passes everything
// else through unchanged (method, target, every header including Host and Origin, the body, the
// answer as it streams), so the Host/Origin checks the suite probes are the server's own.
//
//   node test/mcp/conformance.mjs [--keep DIR]   (--keep: leave the suite's checks.json files in DIR)
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { scaled } from '../../scripts/host/common.mjs';
import { ensureHost } from '../../scripts/host/setup.mjs';

const root = path.dirname(path.dirname(path.dirname(fileURLToPath(import.meta.url))));
const CLI = path.join(root, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

export const REQUIRED = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];

const FIXTURE_TOOL =
  'calls a fixture tool of the reference test server (test_simple_text, test_image_content, …) that this server does not have; its own tools return text only, and isError results are covered by the unit suite';
const NO_ELICITATION = 'needs a tool that asks the user for input (elicitation); these tools never do';
const NO_RESOURCES = 'the server offers tools only: no resources';
const NO_PROMPTS = 'the server offers tools only: no prompts';
export const EXCLUDED = {
  'logging-set-level': 'needs the logging capability; the server logs to stderr (logging/setLevel is deprecated in 2026-07-28, SEP-2577)',
  'completion-complete': 'needs prompts or resource templates to complete; the server offers tools only',
  'tools-call-simple-text': FIXTURE_TOOL,
  'tools-call-image': FIXTURE_TOOL,
  'tools-call-audio': FIXTURE_TOOL,
  'tools-call-embedded-resource': FIXTURE_TOOL,
  'tools-call-mixed-content': FIXTURE_TOOL,
  'tools-call-with-logging': FIXTURE_TOOL,
  'tools-call-error': FIXTURE_TOOL,
  'tools-call-with-progress': FIXTURE_TOOL,
  'tools-call-sampling': `${FIXTURE_TOOL}; and the server never asks the client's model (sampling)`,
  'tools-call-elicitation': NO_ELICITATION,
  'elicitation-sep1034-defaults': NO_ELICITATION,
  'elicitation-sep1330-enums': NO_ELICITATION,
  'server-sse-multiple-streams':
    "needs an Mcp-Session-Id; 2025-era HTTP requests are served statelessly on purpose (every agent shares the process's one recall session), so the suite only warns",
  'resources-list': NO_RESOURCES,
  'resources-read-text': NO_RESOURCES,
  'resources-read-binary': NO_RESOURCES,
  'resources-templates-read': NO_RESOURCES,
  'resources-subscribe': NO_RESOURCES,
  'resources-unsubscribe': NO_RESOURCES,
  'prompts-list': NO_PROMPTS,
  'prompts-get-simple': NO_PROMPTS,
  'prompts-get-with-args': NO_PROMPTS,
  'prompts-get-embedded-resource': NO_PROMPTS,
  'prompts-get-with-image': NO_PROMPTS,
};

/** Starts the built server on a free port with `token`; resolves with its URL and a stop function. */
function startServer(scratch, token) {
  const workspace = path.join(scratch, 'workspace');
  const store = path.join(scratch, 'store');
  spawnSync('mkdir', ['-p', workspace, store]);
  const child = spawn(process.execPath, [path.join(root, 'dist/mcp.js'), '--http', '0', '--workspace', workspace, '--store', store], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, TOOL_OUTPUT_RECALL_MCP_TOKEN: token },
  });
  let stderr = '';
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const match = /serving MCP at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
      if (match) resolve({ url: match[1], stderr: () => stderr, stop: () => (child.kill('SIGTERM'), exited) });
    });
    exited.then((code) => reject(new Error(`the server exited with ${code}: ${stderr}`)));
  });
}

/** Serves on a free 127.0.0.1 port what `target` (the server's URL) answers, adding `Authorization: Bearer <token>`. */
function forwarderWithToken(target, token) {
  const upstream = new URL(target);
  const proxy = http.createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${token}` };
    const out = http.request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  return new Promise((resolve) => {
    proxy.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${proxy.address().port}${upstream.pathname}`, close: () => proxy.close() }),
    );
  });
}

/** Runs the suite's CLI to its end (killed after 10 minutes ×TEST_TIME_SCALE, only if it hangs); resolves with its output. */
function runSuite(node, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(node, args, { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), scaled(10 * 60_000));
    child.once('error', reject);
    child.once('close', () => {
      clearTimeout(timer);
      resolve({ stdout, stderr });
    });
  });
}

/** pass: every check SUCCESS (or INFO); warn: no failure but a warning; fail otherwise. */
function outcomeOf(checks) {
  if (checks.some((check) => check.status === 'FAILURE')) return 'fail';
  if (checks.some((check) => check.status === 'WARNING') || !checks.some((check) => check.status === 'SUCCESS')) return 'warn';
  return 'pass';
}

/** The scenarios' outcomes from the suite's output folder (one `server-<scenario>-<time>/checks.json` each). */
function readResults(outDir) {
  const results = new Map();
  for (const name of readdirSync(outDir)) {
    const match = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(name);
    if (!match) continue;
    const checks = JSON.parse(readFileSync(path.join(outDir, name, 'checks.json'), 'utf8'));
    results.set(match[1], { outcome: outcomeOf(checks), checks });
  }
  return results;
}

async function main() {
  const keep = process.argv.includes('--keep') ? process.argv[process.argv.indexOf('--keep') + 1] : undefined;
  const { node } = ensureHost({ quiet: true });
  if (!existsSync(path.join(root, 'dist/mcp.js')))
    spawnSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { stdio: 'inherit' });
  const scratch = mkdtempSync(path.join(tmpdir(), 'tor-conformance-'));
  const outDir = keep ? path.resolve(keep) : path.join(scratch, 'results');
  const token = randomBytes(32).toString('base64url');
  const server = await startServer(scratch, token);
  const forwarder = await forwarderWithToken(server.url, token);
  let results;
  try {
    // Not spawnSync: the forwarder answers from this process's event loop while the suite runs.
    const run = await runSuite(node, [CLI, 'server', '--url', forwarder.url, '--suite', 'active', '-o', outDir]);
    results = readResults(outDir);
    if (results.size === 0) throw new Error(`the suite wrote no results:\n${run.stdout}\n${run.stderr}`);
  } finally {
    forwarder.close();
    await server.stop();
    if (!keep) rmSync(scratch, { recursive: true, force: true });
  }

  const version = JSON.parse(readFileSync(path.join(root, 'node_modules/@modelcontextprotocol/conformance/package.json'), 'utf8')).version;
  console.log(
    `MCP conformance ${version} (active server suite, Node ${spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim()}) against ${server.url}`,
  );
  const counts = { passed: 0, failed: 0, skipped: 0, failures: [] };
  const fail = (text) => {
    counts.failed++;
    counts.failures.push(text);
    console.log(`  FAIL  ${text}`);
  };
  for (const scenario of REQUIRED) {
    const result = results.get(scenario);
    const detail = result
      ? result.checks.map((check) => `${check.id} ${check.status}${check.errorMessage ? `: ${check.errorMessage}` : ''}`).join('; ')
      : 'did not run';
    if (result?.outcome !== 'pass') fail(`${scenario}  (${detail})`);
    else {
      counts.passed++;
      console.log(`  PASS  ${scenario}  (${detail})`);
    }
  }
  for (const [scenario, result] of results) {
    if (REQUIRED.includes(scenario)) continue;
    const reason = EXCLUDED[scenario];
    if (reason === undefined) {
      fail(`${scenario}: a scenario neither required nor excluded (outcome ${result.outcome}); add it to one list`);
    } else if (result.outcome === 'pass') {
      fail(`${scenario}: excluded, but it passes now; make it required`);
    } else {
      console.log(`  excluded (${result.outcome})  ${scenario}: ${reason}`);
    }
  }
  for (const scenario of REQUIRED) if (EXCLUDED[scenario]) throw new Error(`${scenario} is both required and excluded`);
  console.log(`${counts.passed} passed, ${counts.failed} failed (required scenarios), ${results.size - REQUIRED.length} excluded`);
  if (process.env.TOR_RESULTS_FILE) writeFileSync(process.env.TOR_RESULTS_FILE, JSON.stringify(counts));
  process.exit(counts.failed === 0 ? 0 : 1);
}

main().catch((error) => {
  console.error(`conformance: ${error.stack ?? error}`);
  process.exit(1);
});
