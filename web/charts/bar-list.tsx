/**
 * A horizontal bar per category (debts by status), drawn on the server as SVG: the category's name on the left, its
 * bar, and its value after the bar. One image to assistive technology (`role="img"`, `<title>`, `<desc>`); the caller
 * puts the table of the same figures beside it. Presentation is SVG attributes only.
 */
import { CHART_FONT, CHART_GRID, ChartFrame } from './chart-frame';
import { count, niceMax } from './scale';

export interface BarListProps {
  id: string;
  title: string;
  description: string;
  /** In the order shown; `colour` a fill with at least 3:1 contrast on white. */
  bars: { label: string; value: number; colour: string }[];
}

const WIDTH = 480;
const ROW = 24;
const LABEL_W = 150;
const VALUE_W = 60;
const TOP = 4;

export function BarList({ id, title, description, bars }: BarListProps) {
  const max = niceMax(Math.max(0, ...bars.map((b) => b.value)));
  const plot = WIDTH - LABEL_W - VALUE_W;
  const height = TOP * 2 + ROW * bars.length;
  return (
    <ChartFrame id={id} title={title} description={description} width={WIDTH} height={height}>
      <line x1={LABEL_W} x2={LABEL_W} y1={TOP} y2={height - TOP} stroke={CHART_GRID} stroke-width="1" />
      {bars.map((b, i) => {
        const top = TOP + ROW * i;
        const width = Math.round((b.value / max) * plot * 10) / 10;
        return (
          <g key={b.label}>
            <text x={LABEL_W - 8} y={top + ROW / 2 + CHART_FONT / 3} text-anchor="end">
              {b.label}
            </text>
            {b.value > 0 && (
              <rect x={LABEL_W} y={top + 4} width={Math.max(width, 1)} height={ROW - 8} fill={b.colour} />
            )}
            <text x={LABEL_W + Math.max(width, 0) + 6} y={top + ROW / 2 + CHART_FONT / 3}>
              {count(b.value)}
            </text>
          </g>
        );
      })}
    </ChartFrame>
  );
}
