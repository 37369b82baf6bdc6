/**
 * The inspector webview: the preview the model received beside the whole retained copy, the flags,
 * a byte-offset pager and search.
 *
 * Plain TypeScript + DOM, no component library: the hot path (slider → page) is a text renderer
 * that must stay in our hands (textContent only, ANSI, highlights, gap marks), the CSP stays
 * `default-src 'none'` with a single nonce'd script and no adopted/inline styles to allow, the
 * bundle stays ~55 KB with no runtime dependency, and the native look comes from the same
 * --vscode-* variables VS Code's own widgets use.
 */
// First: loads the page's translations before any module below builds a text.
import './translations';
import './inspector.css';
import * as l10n from '@vscode/l10n';
import { button, h, ownScroller, scrollWithin, toggle } from './dom';
import { bytes, bytesExact, num, outputSizes, time } from './format';
import { computeFlags, endOfSaved, renderFlags } from './flags';
import { HostConnection, HostError, type VsCodeApi } from './ipc';
import { NotableList } from './notableList';
import { Overview, type OverviewTarget } from './overview';
import { Pager } from './pager';
import { MAX_PAGE_BYTES, type DescribeResult, type HostAction, type PageResult, type PersistedState, type SearchMatch } from './protocol';
import { SearchPanel, type SearchQuery } from './searchPanel';
import { lineRow, renderText } from './textView';
import { renderSession } from './sessionInfo';

class Inspector {
  private state: PersistedState | undefined;
  private describe: DescribeResult | undefined;
  private readonly conn: HostConnection;
  private readonly pager: Pager;
  private readonly search: SearchPanel;
  private readonly overview = new Overview((target) => this.goTo(target));
  private readonly notables = new NotableList((offset, line) => void this.pager.go(offset, 'exact', line));
  /** The preview's marker line, to bring into view once the first page is shown (a narrow view). */
  private markerPending: number | undefined;
  private raw = false;

  private readonly title = h('h1', { className: 'title' });
  private readonly meta = h('div', { className: 'meta' });
  private readonly flags = h('div', { className: 'flags', attrs: { role: 'list', 'aria-label': l10n.t('Flags of this output') } });
  private readonly banners = h('div', { className: 'banners' });
  private readonly session = h('section', { className: 'session', attrs: { 'aria-label': l10n.t('Session') } });
  /** Where the preview comes from (data-source): for a recorded one, the label that it is exact. */
  private readonly previewInfo = h('div', { className: 'pane-note preview-note' });
  private readonly previewText = h('div', {
    className: 'preview-text',
    attrs: { tabindex: 0, role: 'region', 'aria-label': l10n.t('Preview the model received') },
  });
  private readonly notice = h('div', { className: 'notice', attrs: { role: 'status', 'aria-live': 'polite' } });
  private readonly wrapToggle: HTMLButtonElement;
  private readonly actions: Record<Exclude<HostAction, 'switchSession'>, HTMLButtonElement>;

  constructor(
    private readonly api: VsCodeApi,
    private readonly root: HTMLElement,
  ) {
    this.state = restoreState(api.getState());
    this.conn = new HostConnection(api, (message) => {
      if (message.method === 'show') void this.show(message.params.outputId, message.params.offset, message.params.sessionId);
      else if (message.method === 'changed') void this.refresh();
    });
    this.pager = new Pager(this.conn, { onPage: (page) => this.onPage(page) });
    this.search = new SearchPanel(this.conn, {
      onHighlight: (pattern, query) => {
        this.pager.setView({ highlight: pattern });
        this.persist({ search: query });
      },
      onPick: (match) => this.jumpToMatch(match),
      onMatches: (matches) => this.overview.setMatches(matches),
    });
    // The overview runs along the slider, under it.
    this.pager.element.querySelector('.pager-head')?.after(this.overview.element);
    this.wrapToggle = toggle(l10n.t('Wrap long lines'), l10n.t('Wrap'), this.state?.wrap ?? true, (wrap) => {
      this.pager.setView({ wrap });
      this.previewText.classList.toggle('nowrap', !wrap);
      this.persist({ wrap });
    });
    const rawToggle = toggle(
      l10n.t('Show control characters'),
      l10n.t('Raw'),
      false,
      (raw) => {
        this.raw = raw;
        this.pager.setView({ raw });
        this.renderPreview();
      },
      l10n.t('Show escape sequences and control characters as they are, instead of as colours'),
    );
    this.actions = {
      copyPage: button(l10n.t('Copy page'), () => void this.act('copyPage'), {
        secondary: true,
        title: l10n.t('Copy the text of this page'),
      }),
      copyOutputId: button(l10n.t('Copy ID'), () => void this.act('copyOutputId'), {
        secondary: true,
        title: l10n.t('Copy the output ID'),
      }),
      openInEditor: button(l10n.t('Open in editor'), () => void this.act('openInEditor'), {
        secondary: true,
        title: l10n.t('Open the whole copy in an editor tab'),
      }),
      saveAs: button(l10n.t('Save as…'), () => void this.act('saveAs'), {
        secondary: true,
        title: l10n.t('Save the whole copy as a file'),
      }),
    };

    const header = h(
      'header',
      { className: 'header' },
      h('div', { className: 'heading' }, this.title, this.meta),
      h('div', { className: 'header-actions' }, this.actions.copyOutputId, this.actions.openInEditor, this.actions.saveAs),
    );
    const previewPane = h(
      'section',
      { className: 'pane preview-pane', attrs: { 'aria-labelledby': 'preview-heading' } },
      h('div', { className: 'pane-head' }, h('h2', { id: 'preview-heading' }, l10n.t('Preview the model received'))),
      this.previewInfo,
      this.previewText,
    );
    const copyPane = h(
      'section',
      { className: 'pane copy-pane', attrs: { 'aria-labelledby': 'copy-heading' } },
      h(
        'div',
        { className: 'pane-head' },
        h('h2', { id: 'copy-heading' }, l10n.t('Retained copy')),
        h('div', { className: 'pane-tools' }, this.actions.copyPage, this.wrapToggle, rawToggle),
      ),
      this.search.element,
      this.notables.element,
      this.pager.element,
    );
    this.root.replaceChildren(
      header,
      this.session,
      this.flags,
      this.banners,
      h('main', { className: 'panes' }, previewPane, copyPane),
      this.notice,
    );
    this.pager.setView({ wrap: this.state?.wrap ?? true });
    this.previewText.classList.toggle('nowrap', !(this.state?.wrap ?? true));

    document.addEventListener('keydown', (event) => {
      if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === 'f') {
        event.preventDefault();
        this.search.focus();
      } else if (this.pager.handleGlobalKey(event)) {
        event.preventDefault();
      }
    });
    this.conn.start();
  }

  private async show(outputId: string, offset?: number, sessionId?: string): Promise<void> {
    const saved = this.state?.outputId === outputId ? this.state : undefined;
    this.state = {
      outputId,
      sessionId: sessionId ?? saved?.sessionId,
      offset: offset ?? saved?.offset ?? 0,
      pageBytes: saved?.pageBytes ?? MAX_PAGE_BYTES,
      wrap: saved?.wrap,
      search: saved?.search,
    };
    this.persist({});
    this.search.setOutput(outputId, saved?.search);
    await this.load(this.state.offset);
    if (saved?.search) void this.search.run();
  }

  /** Describes the output again and re-reads the page on screen (outputs changed meanwhile). */
  private async refresh(): Promise<void> {
    if (this.state) await this.load(this.pager.page?.offset ?? this.state.offset, true);
  }

  /**
   * Describes the output and shows the page at `offset`. On a refresh (`changed` fires after every
   * retain) the page on screen is kept when the copy is still readable: a copy never changes, and
   * re-reading would reset the scroll position of someone reading while tools run.
   */
  private async load(offset: number, refresh = false): Promise<void> {
    const outputId = this.state!.outputId;
    const before = this.describe;
    try {
      this.describe = await this.conn.request('describe', { outputId });
    } catch (error) {
      this.describe = undefined;
      this.showMissing(outputId, error);
      return;
    }
    const readable = (d: DescribeResult | undefined): boolean => !!d && !d.unreadable && !d.info.evicted;
    if (
      refresh &&
      readable(before) &&
      readable(this.describe) &&
      this.pager.page &&
      before!.info.totalBytes === this.describe.info.totalBytes
    ) {
      this.renderHeader(this.describe);
      this.search.setCopy(this.describe.info);
      this.renderBanners();
      this.renderFlags();
      renderSession(this.session, this.describe.session, this.describe.origin);
      return;
    }
    this.root.setAttribute('aria-busy', 'false');
    this.renderHeader(this.describe);
    this.renderPreview();
    this.pager.setOutput(this.describe, this.state!.pageBytes);
    this.overview.setOutput(this.describe);
    this.notables.setOutput(this.describe);
    void this.loadNotable(this.describe);
    this.search.setCopy(this.describe.info);
    this.renderBanners();
    this.renderFlags();
    renderSession(this.session, this.describe.session, this.describe.origin);
    if (!this.describe.unreadable && !this.describe.info.evicted) {
      // A restored offset is a boundary of the same copy; 'before' only guards against surprises.
      await this.pager.go(Math.min(offset, this.describe.info.totalBytes), 'before');
    }
    this.revealMarker();
  }

  /** Where the copy's notable lines are: asked for once per output shown (a scan of the whole copy). */
  private async loadNotable(d: DescribeResult): Promise<void> {
    if (d.unreadable || d.info.evicted) return;
    const outputId = d.info.outputId;
    const marks = await this.conn.request('notable', { outputId }).catch(() => undefined);
    if (this.describe?.info.outputId !== outputId) return;
    this.overview.setNotable(marks);
    this.notables.setNotable(marks);
  }

  private goTo(target: OverviewTarget): void {
    if (target.kind === 'line') void this.pager.go(target.offset, 'exact', target.line);
    else if (target.kind === 'match') this.jumpToMatch(target.match);
    else if (target.kind === 'gap') void this.pager.goToCaptureGap();
    else void this.pager.go(target.offset, 'line');
  }

  /**
   * Brings the preview's marker into view: in the preview's own scroller, or in a narrow view (the
   * document scrolls, the copy's page first) once that page is shown, as showing it scrolls the
   * document to its top.
   */
  private revealMarker(): void {
    const line = this.markerPending;
    this.markerPending = undefined;
    const marker = line === undefined ? null : lineRow(this.previewText, line)?.querySelector<HTMLElement>('mark.omission');
    if (marker) scrollWithin(this.previewText, marker);
  }

  private renderHeader(d: DescribeResult): void {
    const { info, command } = d;
    const heading = command.command ?? info.title ?? info.tool ?? info.outputId;
    this.title.textContent = heading.split('\n')[0];
    this.title.title = heading;
    document.title = `${info.tool ?? l10n.t('Output')}: ${heading.slice(0, 60)}`;
    const facts = [
      info.tool ?? l10n.t('tool unknown'),
      h('code', { className: 'output-id' }, info.outputId),
      time(info.createdAt),
      h('span', { className: 'output-sizes' }, outputSizes(info, true)),
      d.totalLines !== undefined ? (d.totalLines === 1 ? l10n.t('1 line') : l10n.t('{0} lines', num(d.totalLines))) : undefined,
      command.cwd ? l10n.t('in {0}', command.cwd) : undefined,
    ].filter((fact) => fact !== undefined);
    this.meta.replaceChildren(
      ...facts.flatMap((fact, i) => (i === 0 ? [fact] : [h('span', { className: 'sep', attrs: { 'aria-hidden': 'true' } }, ' · '), fact])),
    );
    const readable = !d.unreadable && !info.evicted;
    this.actions.openInEditor.disabled = !readable;
    this.actions.saveAs.disabled = !readable;
    this.actions.copyPage.disabled = !readable;
  }

  private renderPreview(): void {
    const preview = this.describe?.preview;
    if (!preview) return;
    const words = {
      recorded: l10n.t('Recorded when the tool ran: exactly what the model received.'),
      recomputed: preview.note ?? '',
      unavailable: preview.note ?? '',
    };
    const size = preview.text !== undefined ? ` ${l10n.t('Preview: {0}.', bytesExact(new TextEncoder().encode(preview.text).length))}` : '';
    this.previewInfo.dataset.source = preview.source;
    this.previewInfo.replaceChildren(h('span', { className: 'preview-source' }, words[preview.source]), size);
    this.previewText.dataset.source = preview.source;
    if (preview.text === undefined) {
      this.previewText.replaceChildren(h('p', { className: 'muted' }, l10n.t('No preview to show.')));
      return;
    }
    const omitted = preview.omitted;
    const first = this.previewText.dataset.rendered !== this.describe?.info.outputId;
    this.previewText.dataset.rendered = this.describe?.info.outputId;
    const { markerLine } = renderText(this.previewText, preview.text, {
      raw: this.raw,
      onDemand: true,
      marker: preview.marker && {
        ...preview.marker,
        action:
          omitted && !this.describe?.info.evicted
            ? {
                label: l10n.t('Show bytes {from} to {to} in the copy', { from: num(omitted.from), to: num(omitted.to) }),
                run: () => void this.pager.go(omitted.from),
              }
            : undefined,
      },
    });
    // What matters most in a cut preview is where it was cut: show the marker first, in its own
    // scroller now, or in a narrow view (the document scrolls) once the first page is shown.
    if (!first || markerLine === undefined) return;
    this.markerPending = markerLine;
    if (ownScroller(this.previewText)) this.revealMarker();
  }

  private renderBanners(): void {
    const d = this.describe;
    if (!d) return; // showMissing owns the banner then
    const banners: HTMLElement[] = [];
    if (d.origin && !d.origin.current) {
      // Not an error: the output is still there, in a session that is not the current one.
      banners.push(
        h(
          'div',
          { className: 'banner info earlier-session', attrs: { role: 'status' } },
          h('span', {}, l10n.t('From an earlier session ({0}) — read-only', d.origin.name)),
          button(l10n.t('Switch back to that session'), () => void this.act('switchSession'), {
            secondary: true,
            title: l10n.t(
              'Make that session current again: its outputs resolve again for tools and new outputs go there, as before New Session',
            ),
          }),
        ),
      );
    }
    if (d.info.evicted || d.unreadable) {
      banners.push(
        h(
          'div',
          { className: 'banner error', attrs: { role: 'alert' } },
          d.unreadable?.message ?? l10n.t('The copy was evicted; its content is gone.'),
        ),
      );
    } else if (!d.info.complete) {
      const size = { size: bytes(d.info.droppedBytes), bytes: num(d.info.droppedBytes) };
      const message =
        d.info.droppedBytes === 0
          ? l10n.t('This copy is incomplete (complete=false): the tool reported missing bytes.')
          : d.info.gapOffset !== undefined
            ? l10n.t(
                'This copy is incomplete (complete=false): {size} ({bytes} bytes) of the output were dropped at byte {offset} before it was saved.',
                {
                  ...size,
                  offset: num(d.info.gapOffset),
                },
              )
            : l10n.t(
                'This copy is incomplete (complete=false): {size} ({bytes} bytes) of the output were dropped before it was saved.',
                size,
              );
      banners.push(
        h(
          'div',
          { className: 'banner warn' },
          h('span', {}, message),
          d.info.gapOffset !== undefined
            ? button(l10n.t('Jump to the capture gap'), () => void this.pager.goToCaptureGap(), { secondary: true })
            : null,
        ),
      );
    }
    const page = this.pager.page;
    if (page && !page.hasMore && !page.complete) {
      banners.push(h('div', { className: 'banner warn end-of-saved', attrs: { role: 'status' } }, endOfSaved()));
    }
    this.banners.replaceChildren(...banners);
  }

  private renderFlags(): void {
    if (this.describe) renderFlags(this.flags, computeFlags(this.describe));
  }

  private onPage(page: PageResult | undefined): void {
    // The output's flags do not depend on the page (its hasMore is the pager's): only the banners do.
    this.renderBanners();
    this.overview.setPage(page);
    if (page) this.persist({ offset: page.offset, pageBytes: this.pager.pageBytes });
  }

  private jumpToMatch(match: SearchMatch): void {
    // Show the match with its line when the line start is close; otherwise start at the match.
    const start = match.offset - match.lineOffset <= 256 ? match.lineOffset : match.offset;
    void this.pager.go(start, 'exact', match.line);
  }

  private async act(action: HostAction): Promise<void> {
    const outputId = this.state?.outputId;
    if (!outputId) return;
    const page = this.pager.page;
    try {
      const result = await this.conn.request('action', {
        outputId,
        action,
        offset: page?.offset,
        end: page?.nextOffset,
        line: page?.firstLine,
      });
      this.notice.textContent = result.message ?? '';
    } catch (error) {
      this.notice.textContent = error instanceof Error ? error.message : String(error);
    }
  }

  private showMissing(outputId: string, error: unknown): void {
    this.root.setAttribute('aria-busy', 'false');
    const code = error instanceof HostError ? error.code : 'ERROR';
    const message = error instanceof Error ? error.message : String(error);
    this.title.replaceChildren(h('code', { className: 'output-id' }, outputId));
    this.title.title = outputId;
    this.meta.replaceChildren();
    renderSession(this.session, undefined);
    this.pager.setOutput(
      {
        info: { outputId, createdAt: 0, totalBytes: 0, complete: false, droppedBytes: 0, evicted: false },
        command: {},
        preview: { source: 'unavailable' },
        unreadable: { code, message },
      },
      MAX_PAGE_BYTES,
    );
    renderFlags(this.flags, [
      {
        key: 'saved',
        label: l10n.t('copy'),
        value: code === 'NOT_FOUND' ? l10n.t('not found') : l10n.t('unavailable'),
        raw: code === 'NOT_FOUND' ? 'not-found' : 'unavailable',
        tone: 'error',
        tip: message,
      },
    ]);
    this.banners.replaceChildren(h('div', { className: 'banner error', attrs: { role: 'alert', 'data-code': code } }, message));
    this.previewText.replaceChildren();
    this.previewInfo.replaceChildren();
    delete this.previewInfo.dataset.source;
    for (const control of Object.values(this.actions)) control.disabled = control !== this.actions.copyOutputId;
  }

  private persist(change: Partial<PersistedState> & { search?: SearchQuery }): void {
    if (!this.state) return;
    this.state = { ...this.state, ...change };
    if ('search' in change && change.search === undefined) delete this.state.search;
    this.api.setState(this.state);
  }
}

function restoreState(value: unknown): PersistedState | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const s = value as Partial<PersistedState>;
  if (typeof s.outputId !== 'string' || typeof s.offset !== 'number') return undefined;
  return {
    outputId: s.outputId,
    ...(typeof s.sessionId === 'string' ? { sessionId: s.sessionId } : {}),
    offset: Math.max(0, Math.floor(s.offset)),
    pageBytes: typeof s.pageBytes === 'number' ? s.pageBytes : MAX_PAGE_BYTES,
    wrap: s.wrap,
    search: s.search,
  };
}

const root = document.getElementById('app');
if (root) new Inspector(acquireVsCodeApi(), root);
