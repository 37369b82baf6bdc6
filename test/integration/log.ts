// Logging from integration tests. scripts/host/run.mjs shows only the extension host's console lines
// that carry its marker (the rest is workbench noise, shown with --verbose); use testLog() for output
// that should appear with the test report. Elsewhere (other runners) it is plain console.log.
import { format } from 'node:util';

export function testLog(...args: unknown[]): void {
  console.log((process.env.TOR_TEST_LOG_MARKER ?? '') + format(...args));
}
