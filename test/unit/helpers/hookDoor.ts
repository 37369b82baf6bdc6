// Hook doors (src/mcp/hookListener.ts) opened in this process on real stores, shared by
// test/unit/hookDoor.test.ts and test/system/hookDoor.test.ts.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import type { SessionStore } from '../../../src/core/store/sessionStore';
import { openStore } from '../../../src/core/workers/stores';
import { listenForHooks, type HookDoor, type HookDoorOptions } from '../../../src/mcp/hookListener';

export interface OpenedDoor {
  door: HookDoor;
  store: SessionStore;
  socketPath: string;
  lines: string[];
}

/**
 * Doors for a suite's tests (call at describe level): each test sets the environment hooks and
 * servers see with `environment`, and every door it opens is closed, and TMPDIR and
 * XDG_RUNTIME_DIR restored, after it.
 */
export function useHookDoors(dirs: { make(): string }): {
  environment(tmp: string, runtime?: string): void;
  openDoor(limits?: Partial<HookDoorOptions>): Promise<OpenedDoor>;
  closeLast(): Promise<void>;
} {
  const saved = { TMPDIR: process.env.TMPDIR, XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR };
  const cleanup: (() => Promise<void>)[] = [];

  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });

  return {
    /** The environment hooks and servers see: `tmp` as the temp folder, and XDG_RUNTIME_DIR when given. */
    environment(tmp, runtime) {
      process.env.TMPDIR = tmp;
      if (runtime === undefined) delete process.env.XDG_RUNTIME_DIR;
      else process.env.XDG_RUNTIME_DIR = runtime;
    },

    /** A door on a real store of its own; its log lines are kept. */
    async openDoor(limits = {}) {
      const store = await openStore({ dir: dirs.make() });
      const lines: string[] = [];
      const log = {
        info: (m: string) => lines.push(m),
        warn: (m: string) => lines.push(`warning: ${m}`),
        error: (m: string) => lines.push(m),
      };
      const door = await listenForHooks({ store: async () => store, sessionId: store.sessionId, workspace: '/', log, ...limits });
      let closed = false;
      const close = async () => {
        if (closed) return;
        closed = true;
        await door.close();
        await store.close();
      };
      cleanup.push(close);
      assert.ok(door.status.listening, JSON.stringify(door.status));
      return { door, store, socketPath: path.join(door.status.dir, `${process.pid}.sock`), lines };
    },

    /** Closes the door opened last (and its store) now, rather than after the test. */
    async closeLast() {
      await cleanup.pop()?.();
    },
  };
}
