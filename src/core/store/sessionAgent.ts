/**
 * Who keeps a session that an MCP server writes: `<id>.sqlite.agent.json` beside the session file,
 * with when the server started it and the MCP clients (their `clientInfo`: Claude Code, Codex,
 * Cursor…) that connected, and where its door for hooks is (or why it has none). The extension reads
 * it to name the session in the Retained Outputs tree; it is one of the session's files
 * (sessionFiles.ts), so it goes when the session does.
 */
import { atomicWriteFile } from './atomicWrite';
import { agentFile, readSessionFile } from './sessionFiles';

export interface AgentClient {
  name: string;
  version?: string;
  title?: string;
}

/** A stdio server's door for hooks (hookListener.ts): the folder it listens in and why there, or why there is none. */
export type HookDoorStatus = { listening: true; dir: string; how: string } | { listening: false; why: string };

export interface SessionAgentRecord {
  /** When a server first opened the session (epoch ms). */
  startedAt: number;
  /** The clients that connected, first first, each name once. */
  clients: AgentClient[];
  /** The door of the server that last opened the session; absent until it says (and for HTTP servers, which have none). */
  hooks?: HookDoorStatus;
}

/** At most this many clients are kept (an HTTP server can be reached by many). */
const MAX_CLIENTS = 8;
const MAX_FIELD = 200;
/** A folder or a reason: longer than any path, shorter than a page. */
const MAX_HOOKS_FIELD = 1000;

/** The record of `sessionFile`, or undefined when there is none or it is unreadable. */
export async function readSessionAgent(sessionFile: string): Promise<SessionAgentRecord | undefined> {
  let parsed: unknown;
  try {
    const bytes = await readSessionFile(agentFile(sessionFile));
    if (!bytes) return undefined;
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  const record = parsed as Partial<SessionAgentRecord>;
  if (typeof record !== 'object' || record === null || typeof record.startedAt !== 'number' || !Array.isArray(record.clients)) {
    return undefined;
  }
  const clients = record.clients.filter((c): c is AgentClient => typeof c === 'object' && c !== null && typeof c.name === 'string');
  const hooks = cleanHooks(record.hooks);
  return { startedAt: record.startedAt, clients: clients.map(cleanClient), ...(hooks ? { hooks } : {}) };
}

/** A door status as written, or undefined when it is not one (the file is the server's, but any process of this user can write it). */
function cleanHooks(value: unknown): HookDoorStatus | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const status = value as Record<string, unknown>;
  const text = (field: unknown): string | undefined => (typeof field === 'string' && field ? field.slice(0, MAX_HOOKS_FIELD) : undefined);
  if (status.listening === true) {
    const dir = text(status.dir);
    const how = text(status.how);
    return dir && how ? { listening: true, dir, how } : undefined;
  }
  const why = status.listening === false ? text(status.why) : undefined;
  return why ? { listening: false, why } : undefined;
}

const clip = (value: unknown): string | undefined => (typeof value === 'string' && value ? value.slice(0, MAX_FIELD) : undefined);

function cleanClient(client: AgentClient): AgentClient {
  const version = clip(client.version);
  const title = clip(client.title);
  return { name: clip(client.name) ?? 'unknown', ...(version ? { version } : {}), ...(title ? { title } : {}) };
}

/**
 * Keeps the record of the session a server writes: `started()` when it opens (a resumed session
 * keeps its first start), `client()` for each client that connects (a name already noted is not written again). Writes are atomic and one at
 * a time; a failure goes to `onError` and never stops the server.
 */
export class SessionAgentNote {
  private chain: Promise<void> = Promise.resolve();
  /** Names already recorded by this process: the server reports its client on every request. */
  private readonly named = new Set<string>();

  constructor(
    readonly sessionFile: string,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** A resumed session's door status was its previous server's: dropped until this one's is known. */
  started(at: number = Date.now()): Promise<void> {
    return this.update((record) => (record ? { startedAt: record.startedAt, clients: record.clients } : { startedAt: at, clients: [] }));
  }

  /** Where this server's door for hooks is, or why it has none. */
  hooks(status: HookDoorStatus): Promise<void> {
    const clean = cleanHooks(status);
    return this.update((record) => ({ ...(record ?? { startedAt: Date.now(), clients: [] }), ...(clean ? { hooks: clean } : {}) }));
  }

  client(client: AgentClient): Promise<void> {
    const clean = cleanClient(client);
    if (this.named.has(clean.name)) return this.chain;
    this.named.add(clean.name);
    return this.update((record) => {
      const base = record ?? { startedAt: Date.now(), clients: [] };
      if (base.clients.some((c) => c.name === clean.name) || base.clients.length >= MAX_CLIENTS) return base;
      return { ...base, clients: [...base.clients, clean] };
    });
  }

  /** Resolves once every write asked for so far is done. */
  idle(): Promise<void> {
    return this.chain;
  }

  private update(change: (record: SessionAgentRecord | undefined) => SessionAgentRecord): Promise<void> {
    this.chain = this.chain.then(async () => {
      try {
        const before = await readSessionAgent(this.sessionFile);
        const after = change(before);
        if (before && JSON.stringify(before) === JSON.stringify(after)) return;
        await atomicWriteFile(agentFile(this.sessionFile), Buffer.from(`${JSON.stringify(after)}\n`));
      } catch (error) {
        this.onError(error);
      }
    });
    return this.chain;
  }
}
