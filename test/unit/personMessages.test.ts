// What a person reads when something the inspector or a command asked for fails
// (src/extension/personMessages.ts, vscode-free). The engine's messages are written for a model: they
// name tool calls and JSON arguments and say what to "pass". People get words of their own, chosen by
// the error's code and what they were doing; the engine's text goes to the log. Checked on the real
// engine's errors, and through the inspector's request handler, which the webview talks to.
import assert from 'node:assert/strict';
import { RecallError, type RecallErrorCode } from '../../src/core/errors';
import type { SessionStore } from '../../src/core/store/sessionStore';
import { openStore } from '../../src/core/workers/stores';
import { logText, personMessage } from '../../src/extension/personMessages';
import { InspectorSession, type InspectorHost } from '../../src/extension/inspector/requestHandler';
import type { ErrorView, HostToWebview } from '../../webview/protocol';
import { useTempDirs } from './helpers/tempDirs';

const UNKNOWN_ID = 'out_0123456789abcdef01234567';

/** Words of the texts written for a model, which a person should never be shown. */
function assertForPeople(text: string, engine?: string): void {
  for (const modelWords of [
    /read_tool_output|search_tool_output|read_file_page|run_command/,
    /"regex"|"outputId"|"offset"|\{"/,
    /Copy the outputId/,
    /\bpass\b/i,
    /nextOffset|maxBytes/,
  ])
    assert.doesNotMatch(text, modelWords, text);
  if (engine) assert.ok(!text.includes(engine), `the engine's own text was shown: ${text}`);
}

async function failure(work: Promise<unknown>): Promise<RecallError> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(error instanceof RecallError, `expected a RecallError, got ${String(error)}`);
  return error;
}

describe('messages for people, not the engine’s texts for a model', () => {
  const dirs = useTempDirs('person-messages');
  let store: SessionStore;
  let outputId: string;

  before(async () => {
    store = await openStore({ dir: dirs.make() });
    // "漢" is three bytes: byte 1 is inside it.
    ({ outputId } = await store.retain('漢字 build log\nline two\n', { tool: 'run_command', title: 'make' }));
  });
  after(() => store.close());

  it('NOT_FOUND names the ID and says it is not in the current session (the engine says "Copy the outputId exactly from the tool result")', async () => {
    const error = await failure(store.info(UNKNOWN_ID));
    assert.equal(error.code, 'NOT_FOUND');
    assert.match(error.message, /Copy the outputId/, 'the engine still speaks to the model');
    const shown = personMessage(error, { outputId: UNKNOWN_ID });
    assert.equal(shown.severity, 'warning', 'an unknown ID is not a failure of the extension');
    assert.match(shown.text, new RegExp(`No retained output has the ID ${UNKNOWN_ID} in the current session`));
    assertForPeople(shown.text, error.message);
  });

  it('MID_CHARACTER_OFFSET and OFFSET_OUT_OF_RANGE name the byte asked for and the size', async () => {
    const mid = await failure(store.read(outputId, 1, 100));
    assert.equal(mid.code, 'MID_CHARACTER_OFFSET');
    const midText = personMessage(mid, { outputId, offset: 1 }).text;
    assert.equal(midText, 'Byte 1 is in the middle of a character: go to a character boundary.');
    assertForPeople(midText, mid.message);

    const total = (await store.info(outputId)).totalBytes;
    const past = await failure(store.read(outputId, 5000, 100));
    assert.equal(past.code, 'OFFSET_OUT_OF_RANGE');
    assert.match(past.message, /read_tool_output|search_tool_output/, 'the engine names tool calls');
    const pastText = personMessage(past, { outputId, offset: 5000 }).text;
    assert.equal(pastText, `Byte 5,000 is past the end of this output, which holds ${total} bytes.`);
    assertForPeople(pastText, past.message);
  });

  it('a bad regular expression says how to search for the text as typed, not to pass "regex": false', async () => {
    const error = await failure(store.search(outputId, '(unclosed', { regex: true }));
    assert.equal(error.code, 'INVALID_ARGUMENT');
    assert.match(error.message, /pass "regex": false/);
    const shown = personMessage(error, { outputId, search: { regex: true } });
    assert.match(shown.text, /turn off "Use Regular Expression"/);
    assertForPeople(shown.text, error.message);
  });

  it('EVICTED says the content is gone and what to do', async () => {
    const small = await openStore({ dir: dirs.make(), copyBytes: 64 * 1024, quotaBytes: 100 * 1024 });
    try {
      const first = await small.retain('a'.repeat(60 * 1024), { tool: 'run_command', title: 'first' });
      await small.retain('b'.repeat(60 * 1024), { tool: 'run_command', title: 'second' });
      const error = await failure(small.read(first.outputId, 0, 100));
      assert.equal(error.code, 'EVICTED');
      const shown = personMessage(error, { outputId: first.outputId });
      assert.match(shown.text, /its content is gone\. Run the command again/);
      assertForPeople(shown.text, error.message);
    } finally {
      await small.close();
    }
  });

  it('every code gets words of its own, never the engine’s message; only failures of the extension are errors', () => {
    const codes: RecallErrorCode[] = [
      'NOT_FOUND',
      'EVICTED',
      'MID_CHARACTER_OFFSET',
      'OFFSET_OUT_OF_RANGE',
      'INVALID_ARGUMENT',
      'STORE_UNAVAILABLE',
      'STORE_CLOSED',
      'COMMAND_FAILED',
      'REFUSED',
      'TIMEOUT',
      'CANCELLED',
      'INTERNAL',
    ];
    const engine = 'Call read_tool_output {"outputId":"out_0123456789abcdef01234567","offset":0} and pass "regex": false.';
    for (const code of codes) {
      for (const context of [{}, { outputId: UNKNOWN_ID, offset: 7 }, { search: { regex: false } }]) {
        const shown = personMessage(new RecallError(code, engine), context);
        assert.equal(shown.code, code);
        assert.ok(shown.text.length > 0, code);
        assertForPeople(shown.text, engine);
      }
    }
    const severities = Object.fromEntries(codes.map((code) => [code, personMessage(new RecallError(code, engine)).severity]));
    assert.deepEqual(
      Object.keys(severities).filter((code) => severities[code] === 'error'),
      ['STORE_UNAVAILABLE', 'COMMAND_FAILED', 'INTERNAL'],
    );
    // The lock message built for people keeps its sense: the session is open in another window.
    const locked = personMessage(new RecallError('STORE_UNAVAILABLE', engine, { openElsewhere: 's20260101-abc' }));
    assert.deepEqual(locked, {
      code: 'STORE_UNAVAILABLE',
      severity: 'warning',
      text: 'Session s20260101-abc is open in another VS Code window: switch to it there.',
    });
    // Not the engine's (a file system error): its own words, as a failure; the log has the code too.
    assert.deepEqual(personMessage(Object.assign(new Error('permission denied'), { code: 'EACCES' })), {
      code: 'ERROR',
      severity: 'error',
      text: 'EACCES: permission denied',
    });
    assert.equal(logText(new RecallError('NOT_FOUND', engine)), `NOT_FOUND: ${engine}`);
  });

  describe("the inspector's request handler", () => {
    const posted: HostToWebview[] = [];
    const logged: { level: string; message: string }[] = [];
    let session: InspectorSession;
    const host = (): InspectorHost => ({
      store: () => Promise.resolve(store),
      post: (message) => posted.push(message),
      previewBytes: () => 24 * 1024,
      actions: { copyText: async () => undefined, openInEditor: async () => undefined, saveAs: async () => false },
      log: (level, message) => logged.push({ level, message }),
    });

    /** Sends one request; returns the error the page gets. */
    async function requestError(s: InspectorSession, method: string, params: Record<string, unknown>): Promise<ErrorView> {
      posted.length = 0;
      await s.handle({ type: 'request', id: 1, method, params });
      const response = posted.find((m) => m.type === 'response');
      assert.ok(response && response.type === 'response' && !response.ok, `expected a failed response: ${JSON.stringify(posted)}`);
      return response.error;
    }

    beforeEach(() => {
      logged.length = 0;
      session = new InspectorSession(host(), outputId);
    });

    it('a bad regular expression: the page gets a message for people, the log the engine’s', async () => {
      const error = await requestError(session, 'search', { outputId, pattern: '(unclosed', regex: true, caseSensitive: false });
      assert.equal(error.code, 'INVALID_ARGUMENT');
      assert.match(error.message, /turn off "Use Regular Expression"/);
      assertForPeople(error.message);
      assert.deepEqual(
        logged.map((l) => l.level),
        ['info'],
        'logged once, not as an error',
      );
      assert.match(logged[0].message, /^inspector search out_[0-9a-f]{24}: INVALID_ARGUMENT: .*pass "regex": false/);
    });

    it('an offset past the end, and an unknown output: the page is told the byte, the size and the ID', async () => {
      const total = (await store.info(outputId)).totalBytes;
      const past = await requestError(session, 'page', { outputId, offset: 5000, maxBytes: 4096, snap: 'exact' });
      assert.equal(past.code, 'OFFSET_OUT_OF_RANGE');
      assert.equal(past.message, `Byte 5,000 is past the end of this output, which holds ${total} bytes.`);
      assert.deepEqual(past.details, { totalBytes: total }, 'the details the page acts on still come');

      const missing = new InspectorSession(host(), UNKNOWN_ID);
      const notFound = await requestError(missing, 'describe', { outputId: UNKNOWN_ID });
      assert.equal(notFound.code, 'NOT_FOUND');
      assert.match(notFound.message, new RegExp(`^No retained output has the ID ${UNKNOWN_ID} in the current session\\.`));
      assert.ok(logged.some((l) => l.level === 'info' && /NOT_FOUND: .*Copy the outputId exactly/.test(l.message)));
    });
  });
});
