/** Every page of a search across outputs (workers/sessionScan.ts `scanSessions`), the cursor passed back until none remains. */
import type { CompiledSearch } from '../../../src/core/search';
import type { OutputKey, SearchOutcome, SessionsSource } from '../../../src/core/search/protocol';
import { scanSessions } from '../../../src/core/workers/sessionScan';

const control = { cancelled: () => false, deadline: Infinity, timeoutMs: 0 };

export async function everyPage(source: Omit<SessionsSource, 'after'>, search: CompiledSearch, useMasks = true): Promise<SearchOutcome[]> {
  const pages: SearchOutcome[] = [];
  let after: OutputKey | undefined;
  do {
    const page = await scanSessions({ ...source, ...(after ? { after } : {}) }, search, control, useMasks);
    pages.push(page);
    after = page.across?.next;
  } while (after);
  return pages;
}
