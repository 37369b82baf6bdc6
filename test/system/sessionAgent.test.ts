// Who keeps an MCP server's session: the agent record beside the session file, written by the real
// server when a client initializes, kept across a resume, and removed with the session.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { deleteSessionFiles, sessionFile } from '../../src/core/store/sessionFiles';
import { SessionAgentNote, readSessionAgent } from '../../src/core/store/sessionAgent';
import { connectStdio, ensureBuilt } from '../unit/helpers/mcpServer';
import { waitUntil } from '../unit/helpers/mochaRun';
import { useTempDirs } from '../unit/helpers/tempDirs';

describe('session agent record', function () {
  this.timeout(120_000);
  const dirs = useTempDirs('session-agent');

  it('keeps the first start and each client once, and goes with the session', async () => {
    const file = sessionFile(dirs.make(), 'sAgent-1');
    writeFileSync(file, '');
    const errors: unknown[] = [];
    const note = new SessionAgentNote(file, (error) => errors.push(error));
    await note.started(1000);
    await note.client({ name: 'claude-code', version: '2.1.0' });
    await note.client({ name: 'claude-code', version: '2.1.1' });
    await note.client({ name: 'codex-mcp-client', version: '0.9.0', title: 'Codex' });
    // A resumed session keeps its first start.
    await new SessionAgentNote(file, (error) => errors.push(error)).started(2000);
    assert.deepEqual(await readSessionAgent(file), {
      startedAt: 1000,
      clients: [
        { name: 'claude-code', version: '2.1.0' },
        { name: 'codex-mcp-client', version: '0.9.0', title: 'Codex' },
      ],
    });
    assert.deepEqual(errors, []);
    await deleteSessionFiles(file);
    assert.equal(existsSync(`${file}.agent.json`), false);
  });

  it('reads an unreadable or malformed record as none, and reports a failed write without throwing', async () => {
    const dir = dirs.make();
    const file = sessionFile(dir, 'sAgent-2');
    assert.equal(await readSessionAgent(file), undefined);
    writeFileSync(`${file}.agent.json`, '{"startedAt":"yesterday"}');
    assert.equal(await readSessionAgent(file), undefined);
    const errors: unknown[] = [];
    await new SessionAgentNote(path.join(dir, 'no-such-folder', 'x.sqlite'), (error) => errors.push(error)).started();
    assert.equal(errors.length, 1);
    assert.match(String(errors[0]), /ENOENT/);
  });

  it('the MCP server records the client that initialized (its clientInfo)', async () => {
    await ensureBuilt();
    const store = dirs.make();
    const server = await connectStdio(['--workspace', dirs.make(), '--store', store]);
    const file = /(?:started|resumed) session \S+ at (\S+)/.exec(server.stderr())![1];
    try {
      // The note is written after initialize answers; the deadline (5 s was fixed; now generous, scaled)
      // only turns a note that never comes into a failure.
      let record = await readSessionAgent(file);
      await waitUntil(
        'the session agent note to name the client',
        async () => !!(record = await readSessionAgent(file))?.clients.length,
        20_000,
        50,
      ).catch(
        () => undefined, // the assertion below says what the note holds
      );
      assert.deepEqual(record?.clients, [{ name: 'recall-unit-test', version: '1.0.0' }]);
      assert.ok(record && record.startedAt <= Date.now());
      assert.match(readFileSync(`${file}.agent.json`, 'utf8'), /recall-unit-test/);
    } finally {
      await server.close();
    }
  });
});
