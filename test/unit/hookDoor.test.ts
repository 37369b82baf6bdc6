// The hook door (src/mcp/hookListener.ts, hookRunDir.ts, hookEvent.ts) cannot be squatted or held:
// a run folder another user made first does not switch it off, a stuck client is timed out, too many
// at once are refused, a request's fields are checked before anything is retained, and deep JSON is
// refused before it is parsed. The door is opened in this process (listenForHooks) on a real store;
// TMPDIR and XDG_RUNTIME_DIR are set per test and restored. A dead server's files removed (its pid a
// child process's): test/system/hookDoor.test.ts.
import assert from 'node:assert/strict';
import { chmodSync, chownSync, mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { readSessionAgent, SessionAgentNote } from '../../src/core/store/sessionAgent';
import { agentFile } from '../../src/core/store/sessionFiles';
import { MAX_JSON_DEPTH, readHookEvent } from '../../src/mcp/hookEvent';
import type { HookAnswer } from '../../src/mcp/hookListener';
import { findRunDirs } from '../../src/mcp/hookRunDir';
import { useHookDoors } from './helpers/hookDoor';
import { waitUntil } from './helpers/mochaRun';
import { NOBODY } from './helpers/otherUser';
import { useTempDirs } from './helpers/tempDirs';

const UID = process.getuid?.() ?? 0;
const REQUEST = { agent: 'gemini-cli', tool: 'run_shell_command', command: 'make', text: 'line 1\nline 2\n' };
const line = (value: unknown): string => `${JSON.stringify(value)}\n`;

/** A folder as another user's: nobody's when this runs as root, else open to everyone (refused the same way). */
function asAnotherUsers(dir: string): void {
  mkdirSync(dir);
  if (UID === 0) chownSync(dir, NOBODY.uid, NOBODY.gid);
  else chmodSync(dir, 0o777);
}

/** Connects, writes `request` (ending the client's side when `end`), and resolves with the answer once the server closes. */
function exchange(socketPath: string, request: string, end = true): { socket: net.Socket; answer: Promise<HookAnswer> } {
  const socket = net.connect(socketPath);
  const answer = new Promise<HookAnswer>((resolve, reject) => {
    let reply = '';
    socket.on('data', (chunk: Buffer) => (reply += chunk.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => {
      try {
        resolve(JSON.parse(reply) as HookAnswer);
      } catch {
        reject(new Error(`the door answered ${JSON.stringify(reply.slice(0, 200))}`));
      }
    });
  });
  if (end) socket.end(request);
  else socket.write(request);
  return { socket, answer };
}

const codeOf = (answer: HookAnswer): string | undefined => ('error' in answer ? answer.code : undefined);

describe('the hook door cannot be squatted or held', function () {
  this.timeout(60_000);
  const dirs = useTempDirs('hook-door');
  const { environment, openDoor, closeLast } = useHookDoors(dirs);

  it('run folders another user made first in the temp folder do not stop the door: the server opens its own, and a hook finds only that', async function () {
    if (process.platform === 'win32') this.skip();
    const tmp = dirs.make();
    const ours = dirs.make();
    asAnotherUsers(path.join(tmp, `tool-output-recall-${UID}`));
    asAnotherUsers(path.join(tmp, `tool-output-recall-${UID}-x`));
    // A link is refused even to a folder of this user's: whoever made it can point it elsewhere.
    symlinkSync(ours, path.join(tmp, `tool-output-recall-${UID}-link`));
    environment(tmp);
    const { door, socketPath, lines, store } = await openDoor();
    assert.ok(door.status.listening);
    const dir = door.status.dir;
    assert.equal(path.dirname(dir), tmp);
    assert.match(path.basename(dir), new RegExp(`^tool-output-recall-${UID}-(?!x$|link$)`));
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.ok(lines.includes(`hooks: listening in ${dir} (no XDG_RUNTIME_DIR)`), lines.join('\n'));
    assert.deepEqual(await findRunDirs(), [dir]);
    const answer = await exchange(socketPath, line(REQUEST)).answer;
    assert.ok('outputId' in answer, JSON.stringify(answer));
    assert.equal((await store.list()).length, 1);
  });

  it('with XDG_RUNTIME_DIR set the door is in $XDG_RUNTIME_DIR/tool-output-recall; a runtime folder open to others is not used', async function () {
    if (process.platform === 'win32') this.skip();
    const runtime = dirs.make();
    const tmp = dirs.make();
    environment(tmp, runtime);
    const first = await openDoor();
    const dir = path.join(runtime, 'tool-output-recall');
    assert.deepEqual(first.door.status, { listening: true, dir, how: '$XDG_RUNTIME_DIR' });
    assert.ok(first.lines.includes(`hooks: listening in ${dir} ($XDG_RUNTIME_DIR)`), first.lines.join('\n'));
    assert.deepEqual(await findRunDirs(), [dir]);
    assert.ok('outputId' in (await exchange(first.socketPath, line(REQUEST)).answer));
    await closeLast();

    chmodSync(runtime, 0o755);
    const second = await openDoor();
    assert.ok(second.door.status.listening);
    assert.equal(path.dirname(second.door.status.dir), tmp);
    assert.match(second.door.status.how, /^XDG_RUNTIME_DIR not used: .* is open to other users \(mode 755\)$/);
    assert.deepEqual(await findRunDirs(), [second.door.status.dir]);
    assert.ok('outputId' in (await exchange(second.socketPath, line(REQUEST)).answer));
  });

  it('a half-sent request is answered TIMEOUT and closed once it sends nothing for idleMs; one trickled past requestMs too', async () => {
    environment(dirs.make());
    const { socketPath, store } = await openDoor({ idleMs: 300, requestMs: 600_000 });
    const idle = await exchange(socketPath, '{"agent": "gemini-cli", "te', false).answer;
    assert.equal(codeOf(idle), 'TIMEOUT', JSON.stringify(idle));
    assert.match((idle as { error: string }).error, /sent nothing for 300 ms; closed/);
    assert.equal((await store.list()).length, 0);
    await closeLast();

    const slow = await openDoor({ idleMs: 600_000, requestMs: 300 });
    const trickle = exchange(slow.socketPath, '{', false);
    const drip = setInterval(() => trickle.socket.write(' '), 20);
    try {
      const answer = await trickle.answer;
      assert.equal(codeOf(answer), 'TIMEOUT', JSON.stringify(answer));
      assert.match((answer as { error: string }).error, /must arrive whole within 300 ms; closed/);
    } finally {
      clearInterval(drip);
    }
    assert.equal((await slow.store.list()).length, 0);
  });

  it('connections past maxConnections are refused with REFUSED and closed; a freed place is served; close() ends stuck clients', async () => {
    environment(dirs.make());
    const { door, socketPath } = await openDoor({ maxConnections: 2 });
    const held = [exchange(socketPath, '{"agent":', false), exchange(socketPath, '{"agent":', false)];
    await Promise.all(held.map(({ socket }) => new Promise((resolve) => socket.once('connect', resolve))));
    const refused = await exchange(socketPath, line(REQUEST)).answer;
    assert.equal(codeOf(refused), 'REFUSED', JSON.stringify(refused));
    assert.match((refused as { error: string }).error, /already serves 2 hook connections/);

    held[0].socket.destroy();
    held[0].answer.catch(() => undefined);
    let served: HookAnswer | undefined;
    await waitUntil('a place freed by a closed connection', async () => {
      served = await exchange(socketPath, line(REQUEST)).answer;
      return 'outputId' in served;
    });
    // The other is still half-sent (idleMs is 10 s): the door's close does not wait for it.
    const stuck = held[1].answer.catch((error: unknown) => error);
    await door.close();
    await stuck;
  });

  it('fields are checked: droppedBytes 1e308, "12", -1 and 1.5, a non-boolean complete, over-long names and deep nesting are INVALID_ARGUMENT, nothing retained', async () => {
    environment(dirs.make());
    const { socketPath, store } = await openDoor();
    const bad: unknown[] = [
      { ...REQUEST, droppedBytes: 1e308 },
      { ...REQUEST, droppedBytes: '12' },
      { ...REQUEST, droppedBytes: -1 },
      { ...REQUEST, droppedBytes: 1.5 },
      { ...REQUEST, complete: 'no' },
      { ...REQUEST, agent: 'a'.repeat(201) },
      { ...REQUEST, tool: '' },
      { ...REQUEST, command: 5 },
      { ...REQUEST, text: 12 },
      { ...REQUEST, extra: JSON.parse(`${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`) as unknown },
      [REQUEST],
    ];
    for (const request of bad) {
      const answer = await exchange(socketPath, line(request)).answer;
      assert.equal(codeOf(answer), 'INVALID_ARGUMENT', `${JSON.stringify(request).slice(0, 200)} → ${JSON.stringify(answer)}`);
    }
    const deep = await exchange(socketPath, `{"agent":${'['.repeat(5_000_000)}\n`).answer;
    assert.match((deep as { error: string }).error, /nested deeper than 64 levels/);
    assert.deepEqual(await store.list(), []);
    const kept = await exchange(socketPath, line({ ...REQUEST, complete: false, droppedBytes: 12 })).answer;
    assert.ok('outputId' in kept, JSON.stringify(kept));
    assert.equal(kept.droppedBytes, 12);
    assert.equal((await store.list()).length, 1);
  });

  it("the session's record says where the door is; a status not of the right shape is dropped on read, and a new start drops the old one", async () => {
    const file = path.join(dirs.make(), 's20260101-000000000000.sqlite');
    const note = new SessionAgentNote(file, (error) => assert.fail(String(error)));
    await note.started(1);
    await note.hooks({ listening: true, dir: '/run/user/0/tool-output-recall', how: '$XDG_RUNTIME_DIR' });
    assert.deepEqual((await readSessionAgent(file))?.hooks, {
      listening: true,
      dir: '/run/user/0/tool-output-recall',
      how: '$XDG_RUNTIME_DIR',
    });
    await note.started(2);
    assert.deepEqual(await readSessionAgent(file), { startedAt: 1, clients: [] });
    await note.hooks({ listening: false, why: 'no folder' });
    assert.deepEqual((await readSessionAgent(file))?.hooks, { listening: false, why: 'no folder' });
    for (const hooks of [{ listening: true, dir: 5, how: 'x' }, { listening: false }, { listening: 'yes', why: 'x' }, 'on']) {
      writeFileSync(agentFile(file), JSON.stringify({ startedAt: 1, clients: [], hooks }));
      assert.deepEqual(await readSessionAgent(file), { startedAt: 1, clients: [] }, JSON.stringify(hooks));
    }
  });
});

describe('readHookEvent: bounded in bytes and in depth before parsing', () => {
  const stream = (...chunks: (string | Buffer)[]): Readable => Readable.from(chunks);

  /** Runs `body` counting JSON.parse calls. */
  async function countingParses<T>(body: () => Promise<T>): Promise<{ parses: number; result: T | Error }> {
    const parse = JSON.parse;
    let parses = 0;
    JSON.parse = ((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
      parses++;
      return parse(text, reviver) as unknown;
    }) as typeof JSON.parse;
    try {
      const result = await body().catch((error: unknown) => error as Error);
      return { parses, result };
    } finally {
      JSON.parse = parse;
    }
  }

  it('a 5,000,000-deep [[[[… is refused without JSON.parse', async () => {
    const { parses, result } = await countingParses(() => readHookEvent(stream(Buffer.alloc(5_000_000, '[')), 8 * 1024 * 1024));
    assert.ok(result instanceof Error);
    assert.equal(result.message, 'the event is nested deeper than 64 levels; ignored');
    assert.equal(parses, 0);
  });

  it('brackets, escaped quotes and backslashes inside strings are not counted; 64 levels pass, 65 do not', async () => {
    const nest = (levels: number): unknown => (levels === 0 ? 1 : [nest(levels - 1)]);
    const event = {
      tool_name: 'run_shell_command',
      text: `${'['.repeat(1000)}"${'{'.repeat(1000)}\\`,
      other: '\\"[[[[\\\\',
      quoted: '"}}}}]]]]"',
      deep: nest(MAX_JSON_DEPTH - 1),
    };
    const json = JSON.stringify(event);
    // Split mid-string and mid-escape: the depth is counted on the whole event.
    assert.deepEqual(await readHookEvent(stream(json.slice(0, 1001), Buffer.from(json.slice(1001))), 1 << 20), event);
    await assert.rejects(readHookEvent(stream(JSON.stringify({ ...event, deep: nest(MAX_JSON_DEPTH) })), 1 << 20), {
      message: 'the event is nested deeper than 64 levels; ignored',
    });
  });

  it('an event over the limit, or not an object, is refused; a normal event is parsed', async () => {
    await assert.rejects(readHookEvent(stream('{"a": 1,', ` "b": "${'x'.repeat(100)}"}`), 64), {
      message: 'the event on stdin is over 64 B; ignored',
    });
    await assert.rejects(readHookEvent(stream('[1, 2]'), 1024), { message: 'the event is not a JSON object; ignored' });
    await assert.rejects(readHookEvent(stream('"text"'), 1024), /not a JSON object/);
    await assert.rejects(readHookEvent(stream('{"a": '), 1024), SyntaxError);
    const event = {
      session_id: 's1',
      tool_name: 'run_shell_command',
      tool_input: { command: 'make' },
      tool_response: { llmContent: 'ok' },
    };
    assert.deepEqual(await readHookEvent(stream(JSON.stringify(event)), 1024), event);
  });
});
