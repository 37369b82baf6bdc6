/**
 * What Search All Outputs looks for, asked in an input box: the text, and the same two options as
 * the inspector's search of one copy (Use Regular Expression, Match Case) as buttons in the box's
 * title. VS Code 1.95's API has no toggle buttons (QuickInputButton has only an icon and a tooltip),
 * so each button's icon shows its state (filled when on) and its tooltip and the prompt say it in
 * words. The last query is remembered for the workspace and offered again.
 */
import * as vscode from 'vscode';
import type { HitQuery } from './searchHitLabel';

export type SearchAllQuery = HitQuery;

/** A query given to the command by a script or a test (the input box is skipped), with its page size. */
export interface SearchAllArgument extends SearchAllQuery {
  /** Hits a page of the search may bring (1 to 1000): smaller pages report progress more often. */
  pageMatches?: number;
}

const LAST_QUERY_KEY = 'toolOutputRecall.searchAllOutputs.lastQuery';

/** The command's argument as a query, if it is one. */
export function queryArgument(arg: unknown): SearchAllArgument | undefined {
  if (typeof arg !== 'object' || arg === null || typeof (arg as { pattern?: unknown }).pattern !== 'string') return undefined;
  const given = arg as Record<string, unknown>;
  const pageMatches = given.pageMatches;
  return {
    pattern: given.pattern as string,
    regex: given.regex === true,
    caseSensitive: given.caseSensitive === true,
    ...(typeof pageMatches === 'number' && Number.isInteger(pageMatches) && pageMatches >= 1 && pageMatches <= 1000 ? { pageMatches } : {}),
  };
}

export function lastQuery(memory: vscode.Memento): SearchAllQuery | undefined {
  const saved = memory.get<Partial<SearchAllQuery>>(LAST_QUERY_KEY);
  return typeof saved?.pattern === 'string'
    ? { pattern: saved.pattern, regex: saved.regex === true, caseSensitive: saved.caseSensitive === true }
    : undefined;
}

export function rememberQuery(memory: vscode.Memento, query: SearchAllQuery): Thenable<void> {
  return memory.update(LAST_QUERY_KEY, { pattern: query.pattern, regex: query.regex, caseSensitive: query.caseSensitive });
}

interface OptionButton extends vscode.QuickInputButton {
  option: 'regex' | 'caseSensitive';
}

function optionButton(extensionUri: vscode.Uri, option: OptionButton['option'], on: boolean): OptionButton {
  const name = option === 'regex' ? 'regex' : 'case';
  const icon = (file: string) => vscode.Uri.joinPath(extensionUri, 'media', 'search', `${file}.svg`);
  const label = option === 'regex' ? vscode.l10n.t('Use Regular Expression') : vscode.l10n.t('Match Case');
  return {
    option,
    iconPath: on
      ? { light: icon(`${name}-on`), dark: icon(`${name}-on`) }
      : { light: icon(`${name}-off-light`), dark: icon(`${name}-off-dark`) },
    tooltip: on ? vscode.l10n.t('{0} (on)', label) : vscode.l10n.t('{0} (off)', label),
  };
}

/** The prompt under the box: what a search with these options does. */
function promptOf(query: SearchAllQuery): string {
  const kind = query.regex ? vscode.l10n.t('regular expression (RE2 syntax)') : vscode.l10n.t('plain text');
  const letters = query.caseSensitive ? vscode.l10n.t('case must match') : vscode.l10n.t('any case');
  return vscode.l10n.t("Searches every retained output: this window's sessions and other agents'. Now: {kind}, {letters}.", {
    kind,
    letters,
  });
}

/** Asks for the text and the options; undefined when the person dismisses the box. */
export function askQuery(extensionUri: vscode.Uri, last: SearchAllQuery | undefined): Promise<SearchAllQuery | undefined> {
  const query: SearchAllQuery = last ? { ...last } : { pattern: '', regex: false, caseSensitive: false };
  const box = vscode.window.createInputBox();
  box.title = vscode.l10n.t('Search All Outputs');
  box.placeholder = vscode.l10n.t('Text to find in every retained output');
  box.value = query.pattern;
  box.valueSelection = [0, query.pattern.length];
  box.ignoreFocusOut = false;
  const show = () => {
    box.buttons = [optionButton(extensionUri, 'regex', query.regex), optionButton(extensionUri, 'caseSensitive', query.caseSensitive)];
    box.prompt = promptOf(query);
  };
  show();
  return new Promise((resolve) => {
    let answer: SearchAllQuery | undefined;
    const disposables = [
      box.onDidTriggerButton((button) => {
        const option = (button as OptionButton).option;
        if (option) query[option] = !query[option];
        show();
      }),
      box.onDidChangeValue(() => (box.validationMessage = undefined)),
      box.onDidAccept(() => {
        if (box.value.length === 0) {
          box.validationMessage = vscode.l10n.t('Type the text to find.');
          return;
        }
        answer = { ...query, pattern: box.value };
        box.hide();
      }),
      box.onDidHide(() => {
        for (const disposable of disposables) disposable.dispose();
        box.dispose();
        resolve(answer);
      }),
    ];
    box.show();
  });
}
