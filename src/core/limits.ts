/** The seed's defaults. Every one is a setting in the extension (`toolOutputRecall.*`). */
export const KiB = 1024;
export const MiB = 1024 * KiB;

export const DEFAULT_LIMITS = {
  /** Preview for command and code-mode results. */
  previewBytes: 24 * KiB,
  /** Head+tail budget for ordinary tool results entering history. */
  historyBytes: 32 * KiB,
  /** Largest page `read` returns; the inspector's MAX_PAGE_BYTES (webview/protocol.ts) is checked against it. */
  pageBytes: 4096,
  /** Largest retained copy. */
  copyBytes: 8 * MiB,
  /** Per-stream capture cap (stdout, stderr) and the merged copy's cap. */
  streamBytes: 8 * MiB,
  /** Retained bytes a session may hold before its oldest copies are evicted. */
  sessionQuotaBytes: 64 * MiB,
} as const;

/** The least a retained copy's cap or a session's journal bound may be (smaller values are raised or refused). */
export const MIN_STORE_BYTES = 4 * KiB;

/** Bytes as a person reads them: 512 B, 3.5 KiB, 12.0 MiB. */
export function formatBytes(bytes: number): string {
  if (bytes < KiB) return `${bytes} B`;
  if (bytes < MiB) return `${(bytes / KiB).toFixed(1)} KiB`;
  return `${(bytes / MiB).toFixed(1)} MiB`;
}

/** A session's journal may hold this many quotas before new copies are refused (checkpoints failing). */
export const JOURNAL_LIMIT_QUOTAS = 2;

export type Limits = { -readonly [K in keyof typeof DEFAULT_LIMITS]: number };
