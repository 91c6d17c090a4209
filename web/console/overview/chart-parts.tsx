/** What the Overview's chart cards share: the legend (a swatch, a name, a figure) under a chart. */
import type { ComponentChildren } from 'preact';

export interface LegendEntry {
  name: string;
  colour: string;
  /** A line (the rate) rather than a filled box. */
  line?: boolean;
  figure?: ComponentChildren;
}

function Swatch({ colour, line }: { colour: string; line?: boolean }) {
  return (
    <svg width="14" height="14" viewBox="0 0 14 14" aria-hidden="true" focusable="false">
      {line ? (
        <line x1="0" x2="14" y1="7" y2="7" stroke={colour} stroke-width="2" stroke-dasharray="5 3" />
      ) : (
        <rect width="14" height="14" fill={colour} />
      )}
    </svg>
  );
}

export function Legend({ entries }: { entries: LegendEntry[] }) {
  return (
    <ul class="chart-legend">
      {entries.map((e) => (
        <li key={e.name}>
          <Swatch colour={e.colour} line={e.line} />
          <span>
            {e.name}
            {e.figure !== undefined && <>: {e.figure}</>}
          </span>
        </li>
      ))}
    </ul>
  );
}

/**
 * The chart's box: on a narrow screen the chart keeps a legible width and scrolls sideways inside it, so the box
 * takes the keyboard focus (a scrolling region must be reachable without a mouse).
 */
export function ChartScroll({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="chart-scroll" tabindex={0} role="group" aria-label={label}>
      {children}
    </div>
  );
}

/** Colours with at least 3:1 contrast on white and apart in lightness, so the two outcomes differ without hue. */
export const COLOURS = {
  delivered: '#3d8b4f',
  failed: '#a3161b',
  open: '#0b5cad',
  finished: '#5f6b7a',
  collected: '#0b5cad',
} as const;
