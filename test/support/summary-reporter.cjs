// Mocha's spec reporter plus one plain closing line, "N passed, N failed[, N skipped]", that CI tools read (or,
// within scripts/test.sh's phases, the phase's counts added to TEST_SUMMARY_FILE for the suite's closing line). With
// TEST_FILE_TIMES=1 it also prints each test file's wall time, slowest first (how the serial tail was chosen).
'use strict';
const Mocha = require('mocha');

const { EVENT_RUN_END, EVENT_SUITE_BEGIN, EVENT_SUITE_END } = Mocha.Runner.constants;

class SpecWithSummary extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const started = new Map();
    const times = new Map(); // file -> ms of its top-level suites
    if (process.env.TEST_FILE_TIMES === '1') {
      runner.on(EVENT_SUITE_BEGIN, (suite) => suite.file && suite.parent?.root && started.set(suite, Date.now()));
      runner.on(EVENT_SUITE_END, (suite) => {
        const at = started.get(suite);
        if (at !== undefined) times.set(suite.file, (times.get(suite.file) ?? 0) + Date.now() - at);
      });
    }
    runner.once(EVENT_RUN_END, () => {
      if (times.size > 0) {
        process.stdout.write('\nTest files by wall time:\n');
        for (const [file, ms] of [...times].sort((a, b) => b[1] - a[1])) {
          process.stdout.write(`${(ms / 1000).toFixed(1).padStart(8)} s  ${file}\n`);
        }
      }
      const { passes, failures, pending } = runner.stats;
      const counts = `${passes} passed, ${failures} failed${pending ? `, ${pending} skipped` : ''}`;
      if (process.env.TEST_SUMMARY_FILE) {
        // One phase of scripts/test.sh, which prints the whole suite's closing line: this phase's is not the last.
        require('node:fs').appendFileSync(process.env.TEST_SUMMARY_FILE, `${passes} ${failures} ${pending}\n`);
        process.stdout.write(`this phase: ${counts.replace(/, /g, '; ')}\n`);
      } else {
        process.stdout.write(`${counts}\n`);
      }
    });
  }
}

module.exports = SpecWithSummary;
