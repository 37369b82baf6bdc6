import * as vscode from 'vscode';
import type { Message, ResultPart } from '../../core/history';

/**
 * The agent loop keeps its conversation in the engine's vscode-free model (so the budgets and the
 * guard can work on it) and converts it to the Language Model API's messages for each request.
 */
export function toChatMessages(messages: readonly Message[]): vscode.LanguageModelChatMessage[] {
  return messages.map((message) => {
    const parts = message.parts.map((part) => {
      switch (part.kind) {
        case 'text':
          return new vscode.LanguageModelTextPart(part.text);
        case 'toolCall':
          return new vscode.LanguageModelToolCallPart(part.callId, part.name, part.input as object);
        case 'toolResult':
          return new vscode.LanguageModelToolResultPart(part.callId, part.parts.map(fromResultPart));
      }
    });
    // The API has no tool or system role: tool results travel in user messages, instructions too.
    return message.role === 'assistant'
      ? vscode.LanguageModelChatMessage.Assistant(parts as (vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart)[])
      : vscode.LanguageModelChatMessage.User(parts as (vscode.LanguageModelTextPart | vscode.LanguageModelToolResultPart)[]);
  });
}

/** Text parts are rebuilt; other parts (images, prompt-tsx) are passed back as they came. */
function fromResultPart(part: ResultPart): unknown {
  return part.kind === 'text' ? new vscode.LanguageModelTextPart(part.text) : part.value;
}

/** A tool's result parts: text is budgeted, anything else (images, prompt-tsx) passes through. */
export function toResultParts(result: vscode.LanguageModelToolResult): ResultPart[] {
  return result.content.map((part) =>
    part instanceof vscode.LanguageModelTextPart ? { kind: 'text', text: part.value } : { kind: 'other', value: part },
  );
}

/** Earlier turns of this chat, as plain text (tool rounds of past turns are not replayed). */
export function historyMessages(context: vscode.ChatContext): Message[] {
  const messages: Message[] = [];
  for (const turn of context.history) {
    if (turn instanceof vscode.ChatRequestTurn) {
      messages.push({ role: 'user', parts: [{ kind: 'text', text: turn.prompt }] });
    } else if (turn instanceof vscode.ChatResponseTurn) {
      const text = turn.response.map((part) => (part instanceof vscode.ChatResponseMarkdownPart ? part.value.value : '')).join('');
      if (text) messages.push({ role: 'assistant', parts: [{ kind: 'text', text }] });
    }
  }
  return messages;
}
