import * as vscode from 'vscode';
import { describeError } from '../../core/errors';
import { fitToolResult, guardRequest, modelEstimator, type Message, type RetainedRef } from '../../core/history';
import type { RecallSettings } from '../config';
import type { SessionManager } from '../sessions/sessionManager';
import { historyMessages, toChatMessages, toResultParts } from './messages';
import { READ_TOOL_OUTPUT_TOOL, SEARCH_TOOL_OUTPUT_TOOL } from '../../core/toolNames';

export const PARTICIPANT_ID = 'toolOutputRecall.recall';
/** Rounds of tool calls in one turn before the loop stops and says so. */
const MAX_ROUNDS = 25;

const INSTRUCTIONS = [
  'You are @recall, a coding agent in VS Code. Use the tools to answer.',
  'Tool results may be previews: when a result shows an omission marker or an outputId, the rest is retained.',
  `Before saying that something is absent from a tool result, search it with ${SEARCH_TOOL_OUTPUT_TOOL} or read it with ${READ_TOOL_OUTPUT_TOOL}.`,
  'Never re-run a command only to see more of its output. Cite outputIds when your answer rests on retained output.',
].join(' ');

/**
 * `@recall`: the reference integration of the history budgets. Each round caps every new tool
 * result (retained first, then head+tail) and runs the global guard over the whole request, so the
 * agent loop never silently loses a tool result. Small on purpose: it is not a second Copilot.
 */
export class RecallParticipant {
  /** Copies the guard made, per session, so an old result is not retained again every round. */
  private readonly copies = new Map<string, RetainedRef>();

  constructor(
    private readonly sessions: SessionManager,
    private readonly settings: () => RecallSettings,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  readonly handler: vscode.ChatRequestHandler = async (request, context, stream, token) => {
    const model = request.model;
    const retain = (content: string, meta: Parameters<SessionManager['retain']>[1]) => this.sessions.retain(content, meta);
    // The preview that replaces a capped result, recorded with its copy for the inspector.
    const annotate = async (outputId: string, extra: Record<string, unknown>) => (await this.sessions.store()).annotate(outputId, extra);
    const estimator = modelEstimator((text) => Promise.resolve(model.countTokens(text, token)));
    const tools = vscode.lm.tools.map(asChatTool);
    const messages: Message[] = [
      { role: 'user', parts: [{ kind: 'text', text: INSTRUCTIONS }] },
      ...historyMessages(context),
      { role: 'user', parts: [{ kind: 'text', text: request.prompt }] },
    ];
    const retained: string[] = [];

    for (let round = 1; round <= MAX_ROUNDS; round++) {
      if (token.isCancellationRequested) break;
      const guarded = await guardRequest(messages, { contextWindowTokens: model.maxInputTokens, estimator, retain, copies: this.copies });
      for (const replaced of guarded.replaced) retained.push(...replaced.outputIds);
      if (guarded.replaced.length > 0) {
        stream.progress(
          vscode.l10n.t('Kept {0} older tool result(s) in the session to stay under 75% of the context window.', guarded.replaced.length),
        );
      }
      const response = await model.sendRequest(
        toChatMessages(guarded.messages),
        { tools, justification: vscode.l10n.t('@recall runs tools to answer.') },
        token,
      );
      const assistant: Message = { role: 'assistant', parts: [] };
      for await (const part of response.stream) {
        if (part instanceof vscode.LanguageModelTextPart) {
          stream.markdown(part.value);
          assistant.parts.push({ kind: 'text', text: part.value });
        } else if (part instanceof vscode.LanguageModelToolCallPart) {
          assistant.parts.push({ kind: 'toolCall', callId: part.callId, name: part.name, input: part.input });
        }
      }
      messages.push(assistant);
      const calls = assistant.parts.filter((part) => part.kind === 'toolCall');
      if (calls.length === 0) {
        offerInspector(stream, retained);
        return { metadata: { rounds: round, retained } };
      }

      const results: Message = { role: 'tool', parts: [] };
      for (const call of calls) {
        stream.progress(vscode.l10n.t('Calling {0}…', call.name));
        const parts = await this.invoke(call.name, call.input, request.toolInvocationToken, token);
        const fitted = await fitToolResult(parts, {
          contextWindowTokens: model.maxInputTokens,
          historyBytes: this.settings().historyBytes,
          retain,
          meta: { tool: call.name, title: JSON.stringify(call.input).slice(0, 200) },
          annotate,
          onPreviewNotRecorded: (message) => this.log.warn(`@recall: ${call.name}: ${message}`),
        });
        for (const cut of fitted.cuts) if (cut.outputId) retained.push(cut.outputId);
        results.parts.push({ kind: 'toolResult', callId: call.callId, name: call.name, parts: fitted.parts });
      }
      messages.push(results);
    }
    // English on purpose: this note is replayed to the model with the chat history (historyMessages).
    stream.markdown(`\n\n_Stopped after ${MAX_ROUNDS} rounds of tool calls._`);
    return { metadata: { rounds: MAX_ROUNDS, retained } };
  };

  /** A failing tool becomes a result the model can read and react to, not a broken turn. */
  private async invoke(
    name: string,
    input: unknown,
    toolInvocationToken: vscode.ChatParticipantToolToken,
    token: vscode.CancellationToken,
  ) {
    try {
      return toResultParts(await vscode.lm.invokeTool(name, { input: input as object, toolInvocationToken }, token));
    } catch (error) {
      if (token.isCancellationRequested) throw error;
      this.log.warn(`@recall: ${name} failed: ${describeError(error)}`);
      return [{ kind: 'text' as const, text: `Tool ${name} failed: ${describeError(error)}` }];
    }
  }
}

/** Tool results are text for the model; the person gets buttons to see what was kept. */
function offerInspector(stream: vscode.ChatResponseStream, outputIds: string[]): void {
  for (const outputId of [...new Set(outputIds)].slice(-3)) {
    stream.button({ command: 'toolOutputRecall.openOutput', arguments: [outputId], title: vscode.l10n.t('Inspect {0}', outputId) });
  }
}

function asChatTool(tool: vscode.LanguageModelToolInformation): vscode.LanguageModelChatTool {
  return { name: tool.name, description: tool.description, inputSchema: tool.inputSchema };
}

export function registerRecallParticipant(context: vscode.ExtensionContext, participant: RecallParticipant): void {
  const chat = vscode.chat.createChatParticipant(PARTICIPANT_ID, participant.handler);
  chat.iconPath = new vscode.ThemeIcon('history');
  context.subscriptions.push(chat);
}
