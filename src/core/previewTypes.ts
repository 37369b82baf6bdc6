/** What a head+tail preview is asked for and what it gives back (preview.ts makes it). */
import type { LineFacts, NotableDigest, NotableLine } from './types';

/** `json` is told apart from `generic` by the first byte anyway; say it when it is known. */
export type PreviewKind = 'command' | 'search' | 'json' | 'generic';

export interface PreviewOptions {
  /** Largest preview, in UTF-8 bytes, marker included. */
  budgetBytes: number;
  /** Shapes the head/tail split: search results favour the head, command output the tail. */
  kind?: PreviewKind;
  /** The retained copy these bytes are, named in the marker so the model can read the gap. */
  outputId?: string;
  /** Why no copy exists, when retention failed; the marker says the gap cannot be read back. */
  unavailableReason?: string;
  /** Whether the retained copy holds the whole output (false: it has its own gap). */
  copyComplete?: boolean;
  /**
   * What the capture saw in the bytes it dropped (their notable lines, output line numbers): the
   * marker lists them as not in the copy.
   */
  dropped?: NotableDigest;
  /** Bytes the capture dropped, and where its gap marker sits in these bytes. */
  droppedBytes?: number;
  gapOffset?: number;
  /** Set false for the plain marker, without the omitted part's notable lines. */
  notable?: boolean;
  /**
   * Words the marker uses instead of the retained/not-retained sentence, for an excerpt of a
   * stream whose bytes are kept elsewhere (stderr inside the merged copy). One line, no brackets.
   */
  omittedNote?: string;
  /** The line facts of `content` (bytes), when its maker counted them already: they are not counted again. */
  lines?: LineFacts;
  /**
   * Largest preview in lines (its line breaks + 1), marker and notable list included, for a client
   * that cuts a result by lines (OpenCode keeps a result's first 2,000 lines): head and tail are cut
   * by lines as well as by bytes (a client's `previewLines`, src/core/agents/agents.ts). Default: none.
   */
  budgetLines?: number;
}

export interface Preview {
  text: string;
  truncated: boolean;
  totalBytes: number;
  totalLines: number;
  /** The content's line breaks per block, from the one count a preview makes (or was given). */
  lines: LineFacts;
  /** The omitted range `[from, to)` in the copy's byte offsets, when truncated. */
  omitted?: { from: number; to: number; bytes: number; firstLine: number; lines: number };
  /** Where the omission marker sits in `text`, as UTF-16 indexes `[start, end)`, when truncated. */
  marker?: { start: number; end: number };
  importantTail: boolean;
  /**
   * The notable lines the marker lists (omitted ones with copy offsets, dropped ones flagged), the
   * one it lists first, and the counts it gives; absent when it lists none.
   */
  notable?: { shown: NotableLine[]; first?: NotableLine; omitted?: NotableDigest['counts']; dropped?: NotableDigest['counts'] };
}
