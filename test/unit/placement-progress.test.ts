/** The Placements page's progress figures (web/console/placements/placement-progress.ts): done, rate and time left. */
import { expect } from 'chai';
import type { Placement } from '../../core/placements/placements';
import { placementProgress } from '../../web/console/placements/placement-progress';

const START = new Date('2026-12-01T10:00:00Z');
const at = (seconds: number) => new Date(START.getTime() + seconds * 1000);

function placement(over: Partial<Placement>): Placement {
  return {
    id: 'p',
    status: 'Importing',
    validateOnly: false,
    fileName: 'a.csv',
    format: 'csv',
    rows: 0,
    imported: 0,
    skipped: 0,
    failed: 0,
    failureReason: null,
    createdAt: START.toISOString(),
    completedAt: null,
    ...over,
  };
}

describe('placement progress figures', () => {
  it('counts rows done (imported, skipped, failed) over the time since the upload, and the time left at that rate', () => {
    const p = placementProgress(placement({ rows: 5000, imported: 900, skipped: 50, failed: 50 }), at(10));
    expect(p).to.include({ done: 1000, total: 5000, percent: 20, finished: false });
    expect(p.summary).to.equal('1,000 of 5,000 rows');
    expect(p.rate).to.equal('100 rows a second');
    expect(p.timeLeft).to.equal('about 40 s left');
    expect(placementProgress(placement({ rows: 100_000, imported: 1000 }), at(10)).timeLeft).to.equal(
      'about 17 min left',
    );
  });

  it('says the rows are being counted while validation has no total, and gives no rate before a row is done', () => {
    const p = placementProgress(placement({ status: 'Validating' }), at(3));
    expect(p).to.include({ percent: null, rate: null, timeLeft: null, summary: 'Counting the rows…' });
  });

  it('gives neither rate nor time left once finished', () => {
    const p = placementProgress(placement({ status: 'Completed', rows: 10, imported: 10 }), at(60));
    expect(p).to.include({ finished: true, percent: 100, rate: null, timeLeft: null });
  });
});
