// Mocha's spec output for people, plus the counts as JSON for the `npm test` aggregator, which adds
// every suite (unit, real host, browser) into one "N passed, N failed, N skipped" line.
//
// Every unit run loads this module (.mocharc.json names it), so it also installs the run's rules
// (helpers/mochaRun.ts): timeouts scaled by TEST_TIME_SCALE, and a skip always says why — the reason
// is in the skipped test's title, printed on its line ("- title (skipped: reason)") and in the JSON.
const fs = require('node:fs');
const Mocha = require('mocha');
const { installRunRules, explainStaticSkip, TIME_SCALE } = require('./helpers/mochaRun.ts');

installRunRules(Mocha);

class CountingReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    if (TIME_SCALE > 1) console.log(`  (timeouts ×${TIME_SCALE}: TEST_TIME_SCALE, the machine as scripts/test-all.mjs measured it)`);
    // Each failure's title and the first line of its error, so the aggregator can print them last,
    // where a CI log that keeps only its tail still shows what failed.
    const failures = [];
    const skips = [];
    runner.on('fail', (test, err) => failures.push(`${test.fullTitle()}: ${String(err?.message ?? err).split('\n')[0]}`));
    // Before the spec reporter's own listener, so the line it prints has the reason.
    runner.prependListener('pending', (test) => {
      explainStaticSkip(test);
      skips.push(test.fullTitle());
    });
    runner.once('end', () => {
      const file = process.env.TOR_RESULTS_FILE;
      if (file)
        fs.writeFileSync(
          file,
          JSON.stringify({ passed: runner.stats.passes, failed: runner.stats.failures, skipped: runner.stats.pending, failures, skips }),
        );
    });
  }
}

module.exports = CountingReporter;
