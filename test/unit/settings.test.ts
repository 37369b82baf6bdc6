// The settings' defaults live in one place, the manifest (package.json): resolveSettings falls back
// to them, and the engine's own defaults (DEFAULT_LIMITS, used where no settings are given) agree.
import assert from 'node:assert/strict';
import { DEFAULT_LIMITS, MIN_STORE_BYTES } from '../../src/core/limits';
import { resolveSettings } from '../../src/core/settings';
import { settingSchema } from '../../src/core/manifest';

describe('settings: defaults from the manifest', () => {
  it('with nothing set, every limit is the manifest default, and DEFAULT_LIMITS says the same', () => {
    const settings = resolveSettings(() => undefined);
    for (const key of Object.keys(DEFAULT_LIMITS) as (keyof typeof DEFAULT_LIMITS)[]) {
      assert.equal(settingSchema(key)?.default, DEFAULT_LIMITS[key], `package.json default of ${key}`);
      assert.equal(settings[key], DEFAULT_LIMITS[key], key);
    }
    assert.equal(settings.sessionsMaxCount, settingSchema('sessions.maxCount')?.default);
    assert.equal(settings.defaultTimeoutSeconds, settingSchema('runCommand.defaultTimeoutSeconds')?.default);
  });

  it('a bad value falls back to the default; a journal bound is raised to the store minimum', () => {
    const settings = resolveSettings((key) => ({ previewBytes: -5, 'store.journalLimitBytes': 100 })[key]);
    assert.equal(settings.previewBytes, DEFAULT_LIMITS.previewBytes);
    assert.equal(settings.journalLimitBytes, MIN_STORE_BYTES);
  });
});
