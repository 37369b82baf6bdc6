/**
 * The session line of the inspector: which session the output is in (by its name, as the picker and
 * the tree name it; the ID in the tooltip), how much it holds, and a
 * warning while saving it fails. Nothing is lost while that lasts, but new outputs will be refused
 * once the journal reaches its limit, so it is said where someone reading outputs will see it.
 */
import * as l10n from '@vscode/l10n';
import { h } from './dom';
import { bytes, num, time } from './format';
import type { SessionOrigin, SessionStats } from './protocol';
import { withTooltip } from './tooltip';

/** `origin` names the session when it is this window's; another agent's is known by its ID only. */
export function renderSession(target: HTMLElement, session: SessionStats | undefined, origin?: SessionOrigin): void {
  if (!session) {
    target.replaceChildren();
    return;
  }
  const sep = (): HTMLElement => h('span', { className: 'sep', attrs: { 'aria-hidden': 'true' } }, ' · ');
  const journal = l10n.t('journal {used} of {limit}', { used: bytes(session.journalBytes), limit: bytes(session.journalLimitBytes) });
  const facts = h(
    'div',
    { className: 'session-facts' },
    l10n.t('Session'),
    ' ',
    origin?.sessionId === session.sessionId
      ? withTooltip(
          h('span', { className: 'session-name', attrs: { tabindex: 0 } }, origin.shortName ?? origin.name),
          l10n.t('Session ID: {0}', session.sessionId),
        )
      : h('code', { className: 'session-id' }, session.sessionId),
    sep(),
    session.outputs === 1 ? l10n.t('1 output') : l10n.t('{0} outputs', num(session.outputs)),
    sep(),
    l10n.t('{retained} of {quota} retained', { retained: bytes(session.retainedBytes), quota: bytes(session.quotaBytes) }),
    sep(),
    h('span', { className: 'session-journal' }, journal),
  );
  const error = session.lastCheckpointError;
  const warning =
    error &&
    h(
      'div',
      { className: 'banner warn checkpoint-warning', attrs: { role: 'alert' } },
      h('strong', {}, l10n.t('Saving this session is failing.')),
      h(
        'span',
        { className: 'checkpoint-reason' },
        l10n.t('Last checkpoint ({at}): {reason}', { at: time(error.at), reason: error.message }),
      ),
      h(
        'span',
        {},
        l10n.t(
          'Retained outputs are safe in the journal ({used} of its {limit} limit) and stay readable; once it passes the limit, new outputs will be refused until a checkpoint succeeds.',
          { used: bytes(session.journalBytes), limit: bytes(session.journalLimitBytes) },
        ),
      ),
    );
  target.replaceChildren(facts, warning || '');
}
