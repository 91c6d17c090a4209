/**
 * A column chart drawn on the server as SVG (no script, no chart library): stacked columns of one or more series per
 * category (a day, a week), a round left axis, and optionally a rate (0–1) drawn as a line on a right axis of
 * percentages. The SVG is one image to assistive technology (`role="img"`, named by its `<title>` and described by its
 * `<desc>`); the figures themselves are in the table the caller puts beside it. Presentation is SVG attributes only
 * (the pages' CSP allows no inline style).
 */
import { CHART_FONT, CHART_GRID, ChartFrame } from './chart-frame';
import { niceMax, percent, shortNumber } from './scale';

export interface ColumnSeries {
  name: string;
  /** A fill with at least 3:1 contrast on white (WCAG 1.4.11). */
  colour: string;
}

export interface ColumnChartProps {
  id: string;
  title: string;
  description: string;
  series: ColumnSeries[];
  /** One entry per category, oldest first: its label and one value per series. */
  columns: { label: string; values: number[] }[];
  /** A rate per category (null where there is none), drawn as a line against 0–100 %. */
  rate?: { name: string; values: (number | null)[] };
  /** How an axis value is written (default: short numbers, `1.2K`). */
  axisLabel?: (value: number) => string;
}

const WIDTH = 480;
const HEIGHT = 220;
const LEFT = 44;
const RIGHT = 44;
const TOP = 12;
const BOTTOM = 26;
const PLOT_W = WIDTH - LEFT - RIGHT;
const PLOT_H = HEIGHT - TOP - BOTTOM;
const RATE_COLOUR = '#1b1f24';

const round = (n: number) => Math.round(n * 10) / 10;

export function ColumnChart({
  id,
  title,
  description,
  series,
  columns,
  rate,
  axisLabel = shortNumber,
}: ColumnChartProps) {
  const totals = columns.map((c) => c.values.reduce((sum, v) => sum + v, 0));
  const max = niceMax(Math.max(2, ...totals)); // at least 2, so the middle gridline is a whole number
  const slot = PLOT_W / Math.max(1, columns.length);
  const barWidth = Math.max(2, slot * 0.7);
  const y = (value: number) => TOP + PLOT_H - (value / max) * PLOT_H;
  const ticks = [0, max / 2, max];
  const labelled = new Set([0, Math.floor((columns.length - 1) / 2), columns.length - 1]);
  const ratePoints = rate
    ? rate.values.flatMap((r, i) =>
        r === null ? [] : [{ x: round(LEFT + slot * i + slot / 2), y: round(TOP + PLOT_H - r * PLOT_H), r }],
      )
    : [];
  return (
    <ChartFrame id={id} title={title} description={description} width={WIDTH} height={HEIGHT}>
      {ticks.map((t) => (
        <g key={t}>
          <line x1={LEFT} x2={LEFT + PLOT_W} y1={round(y(t))} y2={round(y(t))} stroke={CHART_GRID} stroke-width="1" />
          <text x={LEFT - 6} y={round(y(t)) + CHART_FONT / 3} text-anchor="end">
            {axisLabel(t)}
          </text>
        </g>
      ))}
      {rate &&
        [0, 0.5, 1].map((r) => (
          <text key={r} x={LEFT + PLOT_W + 6} y={round(TOP + PLOT_H - r * PLOT_H) + CHART_FONT / 3}>
            {percent(r).replace('.0 ', ' ')}
          </text>
        ))}
      {columns.map((c, i) => {
        let base = 0;
        const x = round(LEFT + slot * i + (slot - barWidth) / 2);
        return (
          <g key={c.label}>
            {c.values.map((v, s) => {
              if (v <= 0) return null;
              const top = y(base + v);
              const height = y(base) - top;
              base += v;
              return (
                <rect
                  key={s}
                  x={x}
                  y={round(top)}
                  width={round(barWidth)}
                  height={round(Math.max(height, 1))}
                  fill={series[s]?.colour}
                  stroke="#ffffff"
                  stroke-width="0.5"
                />
              );
            })}
            {labelled.has(i) && (
              <text
                x={round(LEFT + slot * i + slot / 2)}
                y={HEIGHT - 8}
                text-anchor={i === 0 ? 'start' : i === columns.length - 1 ? 'end' : 'middle'}
              >
                {c.label}
              </text>
            )}
          </g>
        );
      })}
      {ratePoints.length > 1 && (
        <polyline
          points={ratePoints.map((p) => `${p.x},${p.y}`).join(' ')}
          fill="none"
          stroke={RATE_COLOUR}
          stroke-width="2"
          stroke-dasharray="5 3"
        />
      )}
      {ratePoints.map((p) => (
        <circle key={p.x} cx={p.x} cy={p.y} r="2.5" fill={RATE_COLOUR} />
      ))}
    </ChartFrame>
  );
}
