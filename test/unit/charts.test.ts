/**
 * The server-side charts (web/charts/): round axes, a success rate that never reads 100 % while anything failed, and
 * SVG images named and described by elements they contain, with one shape per non-zero value.
 */
import { expect } from 'chai';
import { h } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { BarList } from '../../web/charts/bar-list';
import { ColumnChart } from '../../web/charts/column-chart';
import { niceMax, percent, shortDate } from '../../web/charts/scale';
import { utcDay, utcWeek } from '../../core/rollups/overview-rollups';

describe('server-side charts', () => {
  it('rounds an axis up to 1, 2 or 5 × 10ⁿ', () => {
    expect([0, 1, 3, 7, 10, 11, 180, 501, 1_000_001].map(niceMax)).to.deep.equal([
      1, 1, 5, 10, 10, 20, 200, 1_000, 2_000_000,
    ]);
  });

  it('writes a rate to a tenth of a percent, rounded down', () => {
    expect(percent(999 / 1000)).to.equal('99.9 %');
    expect(percent(99_999 / 100_000)).to.equal('99.9 %');
    expect(percent(1)).to.equal('100.0 %');
    expect(percent(0)).to.equal('0.0 %');
  });

  it('names UTC days and ISO weeks (Monday) for the windows', () => {
    const sunday = new Date('2026-11-29T23:59:00Z');
    expect(utcDay(sunday)).to.equal('2026-11-29');
    expect(utcDay(sunday, -29)).to.equal('2026-10-31');
    expect(utcWeek(sunday)).to.equal('2026-11-23');
    expect(utcWeek(new Date('2026-11-30T00:00:00Z'))).to.equal('2026-11-30');
    expect(utcWeek(sunday, -11)).to.equal('2026-09-07');
    expect(shortDate('2026-09-07')).to.equal('7 Sep');
  });

  it('draws a column chart as one named, described image with a shape per non-zero value and the rate', () => {
    const svg = renderToString(
      h(ColumnChart, {
        id: 'c',
        title: 'Deliveries <per> day',
        description: 'What it shows',
        series: [
          { name: 'Delivered', colour: '#3d8b4f' },
          { name: 'Failed', colour: '#a3161b' },
        ],
        columns: [
          { label: '1 Nov', values: [5, 1] },
          { label: '2 Nov', values: [0, 0] },
          { label: '3 Nov', values: [3, 0] },
        ],
        rate: { name: 'Success rate', values: [5 / 6, null, 1] },
      }),
    );
    expect(svg).to.match(/^<svg role="img" aria-labelledby="c-title c-desc"/);
    expect(svg).to.contain('<title id="c-title">Deliveries &lt;per> day</title>');
    expect(svg).to.contain('<desc id="c-desc">What it shows</desc>');
    expect(svg.match(/<rect /g)).to.have.length(3);
    expect(svg.match(/<circle /g)).to.have.length(2); // no rate on a day with nothing finished
    expect(svg).to.contain('<polyline');
  });

  it('draws a bar per category with its value written after it', () => {
    const svg = renderToString(
      h(BarList, {
        id: 'b',
        title: 'Debts by status',
        description: 'd',
        bars: [
          { label: 'Active', value: 1_234, colour: '#0b5cad' },
          { label: 'Closed', value: 0, colour: '#5f6b7a' },
        ],
      }),
    );
    expect(svg.match(/<rect /g)).to.have.length(1);
    expect(svg).to.contain('>Active</text>').and.contain('>1,234</text>').and.contain('>Closed</text>');
  });
});
