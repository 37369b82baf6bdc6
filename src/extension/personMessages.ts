/**
 * What a person reads when something the inspector or a command asked the engine for fails. The
 * engine's messages (RecallError) are written for a language model: they name tool calls, JSON
 * arguments and what to "pass" next. People get these instead, chosen by the error's code (and what
 * they were doing), translated; the engine's text goes to the log. vscode-free: the inspector's
 * request handler (also run by the browser tests) and the commands share it.
 */
import * as l10n from '@vscode/l10n';
import { describeError, isRecallError } from '../core/errors';
import type { MAX_PATTERN_LENGTH } from '../core/search/compile';

const grouping = new Intl.NumberFormat('en-US');
const num = (value: number): string => grouping.format(value);
/** The engine's longest search pattern, written again (the search engine is not loaded here), checked against its literal type. */
const PATTERN_CHARS = 1000 satisfies typeof MAX_PATTERN_LENGTH;
const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0;

/** What the person was doing when the error came: it makes the message precise. */
export interface ErrorContext {
  outputId?: string;
  /** The byte offset they asked for (typed, a slider position, a link). */
  offset?: number;
  /** A search: whether its pattern was a regular expression. */
  search?: { regex: boolean };
}

export interface PersonMessage {
  text: string;
  /** How to show it: a mistake or a missing thing is a warning, a failure of the extension an error. */
  severity: 'info' | 'warning' | 'error';
  /** The engine's code ('ERROR' for anything that is not a RecallError). */
  code: string;
}

/** The log's line for an error a person was shown: the code and the engine's own text. */
export const logText = (error: unknown): string => (isRecallError(error) ? `${error.code}: ${error.message}` : describeError(error));

export function personMessage(error: unknown, context: ErrorContext = {}): PersonMessage {
  const seeLog = l10n.t('The log has the details (command "Tool Output Recall: Show Log").');
  if (!isRecallError(error)) {
    // Not the engine's: a file system or VS Code error, in words of its own.
    return { code: 'ERROR', severity: 'error', text: describeError(error) };
  }
  const { code, details } = error;
  const warning = (text: string): PersonMessage => ({ code, severity: 'warning', text });
  const failure = (text: string): PersonMessage => ({ code, severity: 'error', text });
  const id = context.outputId;
  switch (code) {
    case 'NOT_FOUND':
      return warning(
        id
          ? l10n.t(
              'No retained output has the ID {0} in the current session. Check the ID, or switch to the session that retained it (command "Tool Output Recall: Switch Session…").',
              id,
            )
          : l10n.t('Nothing was found for that in the current session.'),
      );
    case 'EVICTED':
      return warning(
        l10n.t(
          'The copy of this output was removed to keep the session within its size limit: its content is gone. Run the command again if you need it.',
        ),
      );
    case 'MID_CHARACTER_OFFSET':
      return warning(
        isCount(context.offset)
          ? l10n.t('Byte {0} is in the middle of a character: go to a character boundary.', num(context.offset))
          : l10n.t('That byte offset is in the middle of a character: go to a character boundary.'),
      );
    case 'OFFSET_OUT_OF_RANGE': {
      const total = isCount(details.totalBytes) ? num(details.totalBytes) : undefined;
      if (isCount(context.offset) && total !== undefined)
        return warning(
          l10n.t('Byte {offset} is past the end of this output, which holds {total} bytes.', { offset: num(context.offset), total }),
        );
      return warning(
        total !== undefined
          ? l10n.t('That byte offset is past the end of this output, which holds {0} bytes.', total)
          : l10n.t('That byte offset is past the end of this output.'),
      );
    }
    case 'INVALID_ARGUMENT':
      if (context.search?.regex)
        return warning(
          l10n.t(
            'This is not a regular expression the search can run (RE2 syntax: no lookarounds or backreferences). Fix it, or turn off "Use Regular Expression" to search for the text as typed.',
          ),
        );
      if (context.search) return warning(l10n.t('Search for 1 to {0} characters.', num(PATTERN_CHARS)));
      return warning(`${l10n.t('Tool Output Recall cannot do that: the request was not valid.')} ${seeLog}`);
    case 'TIMEOUT':
      return warning(
        context.search
          ? l10n.t(
              'The search took too long and was stopped. A plain text, or a pattern with a plain part (such as ERROR.*timeout rather than .*timeout), is found fastest.',
            )
          : l10n.t('That took too long and was stopped.'),
      );
    case 'CANCELLED':
      return { code, severity: 'info', text: l10n.t('Cancelled.') };
    case 'REFUSED':
      return warning(`${l10n.t('Tool Output Recall does not do that here.')} ${seeLog}`);
    case 'STORE_UNAVAILABLE':
      if (typeof details.openElsewhere === 'string')
        return warning(l10n.t('Session {0} is open in another VS Code window: switch to it there.', details.openElsewhere));
      return failure(`${l10n.t('The session cannot be read right now. Try again.')} ${seeLog}`);
    case 'STORE_CLOSED':
      return warning(l10n.t('The session this output belongs to was closed. Open the output again from Retained Outputs.'));
    default:
      return failure(`${l10n.t('Tool Output Recall ran into a problem.')} ${seeLog}`);
  }
}
