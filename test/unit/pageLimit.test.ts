// One page limit for the engine and the inspector. The webview cannot import src/ at run time, so
// webview/protocol.ts writes its MAX_PAGE_BYTES again and checks it against DEFAULT_LIMITS.pageBytes
// by type (`satisfies`): this test fails too if that check is ever dropped and the two drift.
import assert from 'node:assert/strict';
import { DEFAULT_LIMITS } from '../../src/core/limits';
import { clampPageBytes } from '../../src/core/pager';
import { MAX_PAGE_BYTES } from '../../webview/protocol';

describe('page limit: the inspector asks for the pages read returns', () => {
  it("the webview's MAX_PAGE_BYTES is the engine's DEFAULT_LIMITS.pageBytes", () => {
    assert.equal(MAX_PAGE_BYTES, DEFAULT_LIMITS.pageBytes);
    assert.equal(clampPageBytes(undefined), MAX_PAGE_BYTES);
    assert.equal(clampPageBytes(MAX_PAGE_BYTES + 1, Number.MAX_SAFE_INTEGER), MAX_PAGE_BYTES);
  });
});
