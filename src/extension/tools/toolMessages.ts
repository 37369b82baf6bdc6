/**
 * What VS Code shows a person for each tool, localized: the line while it runs, and for a tool that
 * runs things (effect `runs`) the confirmation and the status bar progress. Keyed by the tool
 * names, and a running tool's entry must have its confirmation: a missing one fails to compile.
 */
import * as vscode from 'vscode';
import { DEFAULT_TIMEOUT_SECONDS } from '../../core/codeMode/sandbox';
import { RUN_CODE_TOOL, type ToolName } from '../../core/toolNames';
import type { TOOL_SPECS, ToolInput } from '../../core/tools/registry';
import { resolveCwd } from '../../core/tools/runCommand';
import { baseDirOf } from '../../core/tools/toolSpec';

/** The confirmation before a running tool starts: a question, the code itself and a note under it. */
export interface Confirmation {
  title: string;
  question: string;
  code: string;
  language: string;
  note: string;
}

/** For a tool call, given its input and the workspace folders on disk. */
type Describe<N extends ToolName, T> = (input: ToolInput<N>, folders: readonly string[]) => T;

export type ToolMessages<N extends ToolName> = { invocation: Describe<N, string> } & ((typeof TOOL_SPECS)[N]['effect'] extends 'runs'
  ? { confirmation: Describe<N, Confirmation>; progress: Describe<N, string> }
  : object);

const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 3)}…` : text);

export const TOOL_MESSAGES: { readonly [N in ToolName]: ToolMessages<N> } = {
  read_tool_output: {
    invocation: (input) =>
      vscode.l10n.t('Reading retained output {outputId} from byte {offset}', { outputId: input.outputId, offset: input.offset ?? 0 }),
  },
  search_tool_output: {
    invocation: ({ outputId, path, pattern }) =>
      path !== undefined
        ? vscode.l10n.t('Searching {path} for {pattern}', { path, pattern: JSON.stringify(pattern) })
        : vscode.l10n.t('Searching retained output {outputId} for {pattern}', {
            outputId: outputId ?? '',
            pattern: JSON.stringify(pattern),
          }),
  },
  run_command: {
    invocation: ({ command }) => vscode.l10n.t('Running {0}', `\`${clip(command, 80)}\``),
    confirmation: ({ command, cwd }, folders) => ({
      title: vscode.l10n.t('Run command'),
      question: vscode.l10n.t('Run this command in a shell?'),
      code: command,
      language: 'sh',
      note: vscode.l10n.t('in {0}', `\`${resolveCwd(baseDirOf(folders), cwd)}\``),
    }),
    progress: ({ command }) => `$(terminal) ${command.slice(0, 60)}`,
  },
  read_file_page: {
    invocation: ({ path, line, byteOffset }) =>
      byteOffset !== undefined
        ? vscode.l10n.t('Reading {path} from byte {offset}', { path, offset: byteOffset })
        : vscode.l10n.t('Reading {path} from line {line}', { path, line: line ?? 1 }),
  },
  run_code: {
    invocation: ({ code }) => {
      const firstLine = (typeof code === 'string' ? code : '').trim().split('\n')[0] ?? '';
      return vscode.l10n.t('Running program {0}', `\`${clip(firstLine, 60)}\``);
    },
    confirmation: ({ code: given, timeoutSeconds }) => {
      const code = typeof given === 'string' ? given : '';
      return {
        title: vscode.l10n.t('Run code'),
        question: vscode.l10n.t(
          'Run this JavaScript program? It runs isolated (no files, network or processes) and can only act through the tools it calls, which ask for their own confirmation as usual.',
        ),
        code: code.length > 20_000 ? `${code.slice(0, 20_000)}\n// ${vscode.l10n.t('… {0} more characters', code.length - 20_000)}` : code,
        language: 'javascript',
        note: vscode.l10n.t('Time limit: {0} s.', timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS),
      };
    },
    progress: () => `$(code) ${RUN_CODE_TOOL}`,
  },
};

/** What to show for a call of `name`; the input is the one VS Code hands over (its schema already checked by VS Code). */
export function describeCall(
  name: ToolName,
  input: unknown,
  folders: readonly string[],
): { invocation: string; confirmation?: Confirmation; progress?: string } {
  const messages = TOOL_MESSAGES[name] as Partial<Record<'invocation' | 'confirmation' | 'progress', Describe<ToolName, unknown>>>;
  const given = input as ToolInput<ToolName>;
  return {
    invocation: messages.invocation!(given, folders) as string,
    confirmation: messages.confirmation?.(given, folders) as Confirmation | undefined,
    progress: messages.progress?.(given, folders) as string | undefined,
  };
}
