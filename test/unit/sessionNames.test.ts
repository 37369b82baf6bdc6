// Sessions as a person knows them (src/extension/sessions/sessionNames.ts, vscode-free): when each
// started, its first command, its outputs and size, computed from its outputs; the ID is never the name.
// And the inspector's request handler, which names an output's session for the page and says in a
// person's words when that session was deleted.
import assert from 'node:assert/strict';
import { RecallError } from '../../src/core/errors';
import type { OutputInfo } from '../../src/core/types';
import { plainInQuickPick, sessionName, sessionParts, sessionShortName, summarize } from '../../src/extension/sessions/sessionNames';
import { InspectorSession, toErrorView, type InspectorHost } from '../../src/extension/inspector/requestHandler';
import type { HostToWebview } from '../../webview/protocol';

const output = (over: Partial<OutputInfo>): OutputInfo => ({
  outputId: 'out_000000000000000000000001',
  createdAt: 0,
  totalBytes: 0,
  complete: true,
  droppedBytes: 0,
  evicted: false,
  ...over,
});

describe('session names', () => {
  const started = Date.UTC(2026, 11, 5, 21, 30);

  it('are made of when the session started, its oldest command (first line, clipped; a run_command line named briefly), its outputs and their size', () => {
    const outputs = [
      output({ createdAt: started + 3000, title: 'npm test', totalBytes: 2048 }),
      output({ createdAt: started + 1000, title: `sh build-log.sh --with-a-very-long-argument-list\nsecond line`, totalBytes: 1024 }),
      output({ createdAt: started + 2000, title: 'evicted one', totalBytes: 4096, evicted: true }),
    ];
    const summary = summarize('s20261205-ad2f7f183669', started, outputs);
    assert.deepEqual(summary, {
      sessionId: 's20261205-ad2f7f183669',
      startedAt: started,
      firstCommand: 'sh build-log.sh --with-a-very-long-argu…',
      outputs: 2,
      retainedBytes: 3072,
    });
    const name = sessionName(summary, 'en-US');
    const when = new Date(started).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'medium' });
    assert.equal(name, `${when} · sh build-log.sh --with-a-very-long-argu… · 2 outputs · 3.0 KiB`);
    assert.ok(!name.includes('s20261205'), 'the ID is not the name');
  });

  it('say so when a session holds nothing yet, and when its start is unknown (the ID is never read for a date)', () => {
    const parts = sessionParts(summarize('s20261205-ad2f7f183669', undefined, []), 'en-US');
    assert.deepEqual(parts, { when: 'start unknown', first: 'no command yet', contents: 'no outputs' });
    // The start is data: an ID naming another day changes nothing.
    const started = Date.UTC(2027, 0, 2, 3, 4);
    const when = new Date(started).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'medium' });
    assert.equal(sessionParts(summarize('s20261205-ad2f7f183669', started, []), 'en-US').when, when);
    assert.equal(sessionParts(summarize('s1', undefined, [output({ title: 'x', totalBytes: 1 })]), 'en-US').contents, '1 output · 1 B');
  });

  it("a fork's name says which session it was forked from, by that session's name; other sessions' names say nothing of it", () => {
    const parent = summarize('s20261205-000000000001', started, [output({ createdAt: started, title: 'sh build-log.sh' })]);
    const forkOf = sessionShortName(parent, 'en-US');
    const when = new Date(started).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'medium' });
    assert.equal(forkOf, `${when} · sh build-log.sh`);
    const fork = { ...summarize('s20261205-000000000002', started + 60_000, []), forkOf };
    assert.equal(sessionParts(fork, 'en-US').fork, `fork of ${when} · sh build-log.sh`);
    assert.match(sessionName(fork, 'en-US'), /· no command yet · no outputs · fork of .+ · sh build-log\.sh$/);
    assert.ok(!sessionName(parent, 'en-US').includes('fork of'));
  });
});

describe('the inspector names the session of its output', () => {
  const posted: HostToWebview[] = [];
  const info = output({ outputId: 'out_00000000000000000000abcd', title: 'sh earlier.sh', totalBytes: 5 });
  const store = {
    sessionId: 's20261205-000000000001',
    quotaBytes: 1 << 20,
    journalLimitBytes: 2 << 20,
    info: async () => info,
    lineFacts: async () => ({ totalBytes: 5, breaks: 0, lines: 1, blockBytes: 16384, before: [0] }),
    read: async () => ({ text: 'hello', nextOffset: 5, totalBytes: 5, hasMore: false, complete: true }),
    stats: async () => ({ outputs: 1, retainedBytes: 5, evicted: 0, journalBytes: 0, journalLimitBytes: 2 << 20 }),
  };
  const host = (over: Partial<InspectorHost>): InspectorHost => ({
    store: async () => store as never,
    post: (message) => posted.push(message),
    previewBytes: () => 24576,
    actions: { copyText: async () => undefined, openInEditor: async () => undefined, saveAs: async () => true },
    ...over,
  });

  it('a page closed while its answer was made is no failure: no [error] log line, nothing thrown', async () => {
    const logged: string[] = [];
    const session = new InspectorSession(
      host({
        post: () => {
          throw new Error('Webview is disposed');
        },
        log: (level, message) => logged.push(`${level} ${message}`),
      }),
      info.outputId,
    );
    await session.handle({ type: 'request', id: 1, method: 'describe', params: { outputId: info.outputId } });
    assert.deepEqual(
      logged.filter((line) => line.startsWith('error')),
      [],
    );
    assert.ok(
      logged.some((line) => line.includes('closed before its answer')),
      logged.join('\n'),
    );
  });

  it('describe carries the origin, show carries the session ID, and switchSession runs the host’s switch', async () => {
    let switched = 0;
    const origin = { sessionId: store.sessionId, name: 'Dec 5, 2026, 9:30 PM · sh earlier.sh · 1 output · 5 B', current: false };
    const session = new InspectorSession(
      host({
        sessionId: store.sessionId,
        origin: async () => origin,
        switchSession: async () => {
          switched++;
          return true;
        },
      }),
      info.outputId,
    );
    posted.length = 0;
    await session.handle({ type: 'notification', method: 'ready', params: { protocolVersion: 1 } });
    assert.deepEqual(posted[0], {
      type: 'notification',
      method: 'show',
      params: { outputId: info.outputId, offset: undefined, sessionId: store.sessionId },
    });
    assert.deepEqual((await session.describe()).origin, origin);
    assert.deepEqual(await session.action({ outputId: info.outputId, action: 'switchSession' }), {
      done: true,
      message: 'Its session is the current one again.',
    });
    assert.equal(switched, 1);
  });

  it('a host without sessions offers no switch', async () => {
    const session = new InspectorSession(host({}), info.outputId);
    assert.equal((await session.describe()).origin, undefined);
    assert.deepEqual(await session.action({ outputId: info.outputId, action: 'switchSession' }), { done: false, message: undefined });
  });

  it('an output whose session was deleted: what happened, by the session’s name, and what to do', () => {
    const error = new RecallError('NOT_FOUND', 'Session s20261205-000000000001 was deleted: its outputs are gone.', {
      sessionDeleted: 's20261205-000000000001',
      sessionName: 'Dec 5, 2026, 9:30 PM · sh earlier.sh · 1 output · 5 B',
    });
    const view = toErrorView(error, { outputId: info.outputId });
    assert.equal(view.code, 'NOT_FOUND');
    assert.match(
      view.message,
      /^This output belonged to the session Dec 5, 2026, 9:30 PM · sh earlier\.sh · 1 output · 5 B, which was deleted/,
    );
    assert.match(view.message, /run the command again/);
  });
});

describe('quick pick text', () => {
  it("keeps `$(` as text: VS Code's icon syntax would take it, and its screen-reader label would drop it", () => {
    const shown = plainInQuickPick('Dec 6, 2026 · seq $(seq 1 20) · $(x)');
    assert.ok(!/\$\(/.test(shown), 'no `$(` for VS Code to read as an icon');
    assert.equal(shown.replace(/\u2060/g, ''), 'Dec 6, 2026 · seq $(seq 1 20) · $(x)', 'the same text to read');
    // What VS Code's quick pick makes of a label for a screen reader (getCodiconAriaLabel).
    const ariaLabel = (text: string): string => text.replace(/\$\((.*?)\)/g, (_m, name: string) => ` ${name} `).trim();
    assert.equal(ariaLabel(shown).replace(/\u2060/g, ''), 'Dec 6, 2026 · seq $(seq 1 20) · $(x)');
  });
});
