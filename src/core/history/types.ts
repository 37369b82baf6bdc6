/**
 * A generic, vscode-free model of a conversation, just rich enough to budget tool results.
 * The extension maps its host's message types onto these and back.
 */
import type { RetainMeta, RetainResult } from '../types';

/** The session store's `retain`: keep `content` and hand back the id that reads it. */
export type RetainFn = (content: string, meta: RetainMeta) => Promise<RetainResult>;

/** Where a text part's full content lives when the part itself is (or may be) only a preview. */
export interface RetainedRef {
  outputId: string;
  /** Bytes in the retained copy. */
  totalBytes: number;
  /** False when the copy itself has a gap (the producer or the store dropped bytes). */
  complete: boolean;
}

/** One part of a tool result. Only text is budgeted; anything else (images…) passes through. */
export type ResultPart = { kind: 'text'; text: string; retained?: RetainedRef } | { kind: 'other'; value: unknown };

export interface ToolResultPart {
  kind: 'toolResult';
  callId: string;
  /** The tool that produced it, recorded as the copy's `tool` when it is retained. */
  name?: string;
  parts: ResultPart[];
  /** Set by the global guard: the text parts are placeholders, so the guard leaves it alone. */
  replaced?: boolean;
}

export type MessagePart =
  { kind: 'text'; text: string } | { kind: 'toolCall'; callId: string; name: string; input: unknown } | ToolResultPart;

export interface Message {
  role: 'system' | 'user' | 'assistant' | 'tool';
  parts: MessagePart[];
}
