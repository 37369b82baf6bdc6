import type { SessionStore } from '../../../src/core/store/sessionStore';
import { openStore } from '../../../src/core/workers/stores';
import { useTempDirs } from './tempDirs';

/**
 * A session store in a temporary folder and a working folder for commands, made before the suite's
 * tests and deleted after them (call at describe level; read `store` and `work` inside tests).
 */
export function useCommandFixture(prefix: string): { readonly store: SessionStore; readonly work: string } {
  const dirs = useTempDirs(prefix);
  const fixture = {} as { store: SessionStore; work: string };
  before(async () => {
    fixture.store = await openStore({ dir: dirs.make() });
    fixture.work = dirs.make();
  });
  after(() => fixture.store.delete());
  return fixture;
}
