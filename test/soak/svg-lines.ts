/** A line chart as a standalone SVG file, from the soak's own samples (no chart library: a few dozen lines do it). */

export interface Series {
  name: string;
  points: { x: number; y: number }[];
}

const PALETTE = [
  '#1f77b4',
  '#d62728',
  '#2ca02c',
  '#9467bd',
  '#ff7f0e',
  '#17becf',
  '#8c564b',
  '#e377c2',
  '#7f7f7f',
  '#bcbd22',
];
const WIDTH = 960;
const PLOT = { left: 64, top: 40, width: 600, height: 300 };

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A round step giving about `count` ticks up to `max`. */
function niceStep(max: number, count = 5): number {
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  return ([1, 2, 5, 10].find((m) => m * power >= raw) ?? 10) * power;
}

export function lineChart(options: { title: string; xLabel: string; yLabel: string; series: Series[] }): string {
  const all = options.series.flatMap((s) => s.points);
  const maxX = Math.max(1e-9, ...all.map((p) => p.x));
  const yStep = niceStep(Math.max(1e-9, ...all.map((p) => p.y)));
  const maxY = Math.ceil(Math.max(1e-9, ...all.map((p) => p.y)) / yStep) * yStep;
  const xStep = niceStep(maxX, 6);
  const x = (v: number) => PLOT.left + (v / maxX) * PLOT.width;
  const y = (v: number) => PLOT.top + PLOT.height - (v / maxY) * PLOT.height;
  const parts: string[] = [];
  for (let v = 0; v <= maxY + 1e-9; v += yStep) {
    parts.push(
      `<line x1="${PLOT.left}" x2="${PLOT.left + PLOT.width}" y1="${y(v)}" y2="${y(v)}" stroke="#ddd"/>`,
      `<text x="${PLOT.left - 6}" y="${y(v) + 4}" text-anchor="end">${+v.toPrecision(6)}</text>`,
    );
  }
  for (let v = 0; v <= maxX + 1e-9; v += xStep) {
    parts.push(`<text x="${x(v)}" y="${PLOT.top + PLOT.height + 16}" text-anchor="middle">${+v.toPrecision(6)}</text>`);
  }
  options.series.forEach((s, i) => {
    const colour = PALETTE[i % PALETTE.length]!;
    const d = s.points.map((p, j) => `${j === 0 ? 'M' : 'L'}${x(p.x).toFixed(1)},${y(p.y).toFixed(1)}`).join(' ');
    parts.push(`<path d="${d}" fill="none" stroke="${colour}" stroke-width="1.5"/>`);
    const ly = PLOT.top + 8 + i * 18;
    parts.push(
      `<rect x="${PLOT.left + PLOT.width + 20}" y="${ly - 8}" width="12" height="4" fill="${colour}"/>`,
      `<text x="${PLOT.left + PLOT.width + 38}" y="${ly - 2}">${escape(s.name)}</text>`,
    );
  });
  const height = PLOT.top + PLOT.height + 44;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" role="img" font-family="sans-serif" font-size="11">`,
    `<title>${escape(options.title)}</title>`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="${PLOT.left}" y="20" font-size="14" font-weight="bold">${escape(options.title)}</text>`,
    `<line x1="${PLOT.left}" x2="${PLOT.left}" y1="${PLOT.top}" y2="${PLOT.top + PLOT.height}" stroke="#333"/>`,
    `<line x1="${PLOT.left}" x2="${PLOT.left + PLOT.width}" y1="${PLOT.top + PLOT.height}" y2="${PLOT.top + PLOT.height}" stroke="#333"/>`,
    ...parts,
    `<text x="${PLOT.left + PLOT.width / 2}" y="${height - 6}" text-anchor="middle">${escape(options.xLabel)}</text>`,
    `<text transform="translate(14 ${PLOT.top + PLOT.height / 2}) rotate(-90)" text-anchor="middle">${escape(options.yLabel)}</text>`,
    '</svg>',
    '',
  ].join('\n');
}
