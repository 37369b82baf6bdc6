// Mocha's spec output for people, plus the counts as JSON for the `npm test` aggregator, which adds
// every suite (unit, real host, browser) into one "N passed, N failed, N skipped" line.
const fs = require('node:fs');
const Mocha = require('mocha');

class CountingReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    // Each failure's title and the first line of its error, so the aggregator can print them last,
    // where a CI log that keeps only its tail still shows what failed.
    const failures = [];
    runner.on('fail', (test, err) => failures.push(`${test.fullTitle()}: ${String(err?.message ?? err).split('\n')[0]}`));
    runner.once('end', () => {
      const file = process.env.TOR_RESULTS_FILE;
      if (file)
        fs.writeFileSync(
          file,
          JSON.stringify({ passed: runner.stats.passes, failed: runner.stats.failures, skipped: runner.stats.pending, failures }),
        );
    });
  }
}

module.exports = CountingReporter;
