/**
 * Runs a Node script as another local user (nobody, uid 65534): the neighbour the HTTP server's token
 * keeps out. The script is inline (`node -e`) and runs in `/` with nothing from the checkout, which
 * may sit in a folder that user cannot read. Only root can start a process as another user;
 * `cannotSwitchUser()` says why a run is impossible, for the test to log when it skips.
 */
import { spawn } from 'node:child_process';

export const NOBODY = { uid: 65534, gid: 65534 };

/** Why this process cannot run something as nobody, or undefined when it can. */
export function cannotSwitchUser(): string | undefined {
  if (process.platform === 'win32' || process.getuid === undefined) return 'this platform has no uids';
  const uid = process.getuid();
  if (uid !== 0) return `the tests run as uid ${uid}, and only root can start a process as another user`;
  return undefined;
}

/** `node -e script ...args` as nobody; the script's arguments are process.argv.slice(1). */
export function runAsNobody(script: string, args: string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script, ...args], {
      ...NOBODY,
      cwd: '/',
      env: { PATH: '/usr/local/bin:/usr/bin:/bin' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', (error) => reject(new Error(`cannot run ${process.execPath} as uid ${NOBODY.uid}: ${error.message}`)));
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * What nobody gets for an MCP `tools/call` of run_command (no `initialize` needed, as an attacker
 * sends it) with `headers`: `{ status, body }`, printed by the script as JSON.
 */
export async function nobodyCallsRunCommand(
  url: string,
  command: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  const script = `
    const [url, command, headers] = process.argv.slice(1);
    fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...JSON.parse(headers) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'run_command', arguments: { command } } }),
    }).then(async (response) => console.log(JSON.stringify({ status: response.status, body: await response.text() })));`;
  const run = await runAsNobody(script, [url, command, JSON.stringify(headers)]);
  if (run.code !== 0) throw new Error(`the request as nobody failed (exit ${run.code}): ${run.stderr}`);
  return JSON.parse(run.stdout) as { status: number; body: string };
}

/** The error code nobody gets reading `file` (or "read" when it can). */
export async function nobodyReads(file: string): Promise<string> {
  const run = await runAsNobody(
    `try { require('fs').readFileSync(process.argv[1]); console.log('read'); } catch (error) { console.log(error.code); }`,
    [file],
  );
  return run.stdout.trim();
}
