/**
 * The session line of the inspector: which session the output is in, how much it holds, and a
 * warning while saving it fails. Nothing is lost while that lasts, but new outputs will be refused
 * once the journal reaches its limit, so it is said where someone reading outputs will see it.
 */
import { h } from './dom';
import { bytes, plural, time } from './format';
import type { SessionStats } from './protocol';

export function renderSession(target: HTMLElement, session: SessionStats | undefined): void {
  if (!session) {
    target.replaceChildren();
    return;
  }
  const sep = (): HTMLElement => h('span', { className: 'sep', attrs: { 'aria-hidden': 'true' } }, ' · ');
  const journal = `journal ${bytes(session.journalBytes)} of ${bytes(session.journalLimitBytes)}`;
  const facts = h(
    'div',
    { className: 'session-facts' },
    'Session ',
    h('code', { className: 'session-id' }, session.sessionId),
    sep(),
    plural(session.outputs, 'output'),
    sep(),
    `${bytes(session.retainedBytes)} of ${bytes(session.quotaBytes)} retained`,
    sep(),
    h('span', { className: 'session-journal' }, journal),
  );
  const error = session.lastCheckpointError;
  const warning =
    error &&
    h(
      'div',
      { className: 'banner warn checkpoint-warning', attrs: { role: 'alert' } },
      h('strong', {}, 'Saving this session is failing.'),
      h('span', { className: 'checkpoint-reason' }, `Last checkpoint (${time(error.at)}): ${error.message}`),
      h(
        'span',
        {},
        `Retained outputs are safe in the journal (${bytes(session.journalBytes)} of its ${bytes(session.journalLimitBytes)} limit) and stay readable; ` +
          'once it passes the limit, new outputs will be refused until a checkpoint succeeds.',
      ),
    );
  target.replaceChildren(facts, warning || '');
}
