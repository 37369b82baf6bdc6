import assert from 'node:assert/strict';
import { RecallError } from '../../src/core/errors';
import { serializeError, toError } from '../../src/core/worker/errors';

/** An error as it comes back from a worker: structured-cloned, as postMessage does. */
const across = (error: unknown): Error => toError(structuredClone(serializeError(error)));

describe('errors across a worker boundary', () => {
  it('keeps a system error code as a field, not only in the message', () => {
    const back = across(Object.assign(new Error('open /x'), { code: 'EACCES' })) as NodeJS.ErrnoException;
    assert.equal(back.code, 'EACCES');
    assert.equal(back.message, 'EACCES: open /x'); // said once, as describeError says it
  });

  it('rebuilds a RecallError with its code, message and details', () => {
    const back = across(new RecallError('NOT_FOUND', 'No output o1.', { outputId: 'o1' }));
    assert.ok(back instanceof RecallError);
    assert.equal(back.code, 'NOT_FOUND');
    assert.deepEqual(back.details, { outputId: 'o1' });
  });

  it('does not invent a code for an error that had none, whatever its message says', () => {
    const back = across(new Error('ENOENT: this text is not a code')) as NodeJS.ErrnoException;
    assert.equal(back.code, undefined);
  });
});
