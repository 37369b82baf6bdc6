// Our chat participant driven directly by a host suite: it retains through the running extension's
// session, and gets a request as VS Code would hand it one. Nothing here asserts; the suites do.
import type * as vscode from 'vscode';
import { RecallParticipant } from '../../../src/extension/chat/recallParticipant';
import { readSettings } from '../../../src/extension/config';
import type { SessionManager } from '../../../src/extension/sessions/sessionManager';
import { recallApi, testChannel } from './host';

/** The participant, retaining into the running extension's session (it retains only through its session manager). */
export async function participantOnApi(): Promise<RecallParticipant> {
  const api = await recallApi();
  const sessions = { retain: (content: string, meta: object) => api.retain(content, meta) } as unknown as SessionManager;
  return new RecallParticipant(sessions, readSettings, testChannel());
}

/** A request for `prompt` to `model`, with no command, references or tool references. */
export function chatRequest(prompt: string, model: vscode.LanguageModelChat): vscode.ChatRequest {
  return {
    prompt,
    model,
    command: undefined,
    references: [],
    toolReferences: [],
    toolInvocationToken: undefined,
  } as unknown as vscode.ChatRequest;
}
