/**
 * Kill -9 under load, the short form: one round of test/chaos/chaos-run.ts, every process of its
 * own stack killed once while the load runs. `npm run chaos` runs more rounds.
 */
import { expect } from 'chai';
import { runChaos } from '../chaos/chaos-run';

describe('chaos: every process SIGKILLed under load, one after another', function () {
  this.timeout(900_000);

  it('loses nothing: every acknowledged debt once with its workflow, payments once, events delivered, no key stuck', async () => {
    const report = await runChaos({
      rounds: 1,
      progressBetweenKills: 20,
      log: (line) => console.log(`      ${line}`),
    });
    console.log(`      ${JSON.stringify({ ...report, problems: report.problems.length })}`);
    expect(report.problems).to.deep.equal([]);
    expect(report.kills).to.equal(6);
    expect(report.acknowledged.creates).to.be.above(0);
    expect(report.acknowledged.payments + report.acknowledged.recalls + report.acknowledged.accepts).to.be.above(0);
    expect(report.events).to.be.above(0);
  });
});
