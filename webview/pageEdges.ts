/**
 * Escape sequences cut by a page edge. Pages end at byte counts, not at sequence ends, so one page can
 * end with "\x1b[3" and the next begin with "2mgreen": shown as they are, the first would end in a
 * stray "3" and the second begin with "2m". A page hides the start of a sequence it does not finish,
 * and finishes (hides, and applies) one begun before it, from the text before it: the previous page
 * when the reader came with Next (its colours carry on, however far back they were set), else a
 * short read of the copy just before the page (LEAD_BYTES: a colour set earlier than that is not
 * known on a page reached by a jump).
 */
import { continuation, hasStyle, unfinishedTail, type Style } from './ansi';
import type { HostConnection } from './ipc';
import type { PageResult } from './protocol';

/** How long a page reached by a jump stays before the text before it is read (not while dragging). */
export const LEAD_DELAY_MS = 150;

/** How much text before a page is read to finish a sequence it starts inside (OSC 8 links included). */
export const LEAD_BYTES = 512;

/** The text just before a page, and the style in force where that text starts. */
interface Before {
  text: string;
  state: Style;
}

export interface PageBody {
  /** The part of the page's text to render. */
  text: string;
  /** Characters of the page's text left out at its start (finishing a sequence begun before). */
  skip: number;
  /** The SGR style in force where `text` starts. */
  state: Style;
}

function bodyOf(page: PageResult, before: Before | undefined): PageBody {
  const { skip, state } = before ? continuation(before.text, page.text, before.state) : { skip: 0, state: {} };
  const end = Math.max(skip, page.text.length - (page.hasMore ? unfinishedTail(page.text) : 0));
  return { text: page.text.slice(skip, end), skip, state };
}

/** Works out what each page shows, remembering the page on screen for the one after it. */
export class PageEdges {
  private shown: { page: PageResult; before: Before | undefined; body: PageBody } | undefined;

  constructor(private readonly conn: HostConnection) {}

  /**
   * What `page` shows (raw mode: all of it). `known` is false when the text before the page is not
   * known yet: `read` gets it, and says whether the page then shows anything else.
   */
  body(page: PageResult, raw: boolean): { body: PageBody; known: boolean } {
    const previous = this.shown;
    let before: Before | undefined;
    if (page.offset === 0) before = { text: '', state: {} };
    else if (previous?.page.offset === page.offset) before = previous.before;
    else if (previous?.page.nextOffset === page.offset) {
      before = { text: previous.page.text.slice(previous.body.skip), state: previous.body.state };
    }
    const body = bodyOf(page, before);
    this.shown = { page, before, body };
    return { body: raw ? { text: page.text, skip: 0, state: {} } : body, known: before !== undefined };
  }

  /** Reads the text before `page` (still on screen); returns its new body if that changes what it shows. */
  async read(outputId: string, page: PageResult): Promise<PageBody | undefined> {
    const lead = await this.conn.request('pageBefore', { outputId, end: page.offset, maxBytes: LEAD_BYTES });
    if (this.shown?.page !== page) return undefined;
    const before = { text: lead.text, state: {} };
    const body = bodyOf(page, before);
    const changed = body.skip !== this.shown.body.skip || body.text !== this.shown.body.text || hasStyle(body.state);
    this.shown = { page, before, body };
    return changed ? body : undefined;
  }
}
