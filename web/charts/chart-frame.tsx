/**
 * The frame every chart shares: an SVG image named by its title and described by its description (`role="img"`,
 * `aria-labelledby`), scaled to its container's width, in the charts' type and ink.
 */
import type { ComponentChildren } from 'preact';

export const CHART_FONT = 12;
export const CHART_INK = '#1b1f24';
export const CHART_GRID = '#c9d0d8';

export interface ChartFrameProps {
  id: string;
  title: string;
  description: string;
  width: number;
  height: number;
  children: ComponentChildren;
}

export function ChartFrame({ id, title, description, width, height, children }: ChartFrameProps) {
  return (
    <svg
      role="img"
      aria-labelledby={`${id}-title ${id}-desc`}
      viewBox={`0 0 ${width} ${height}`}
      width="100%"
      font-family="system-ui, sans-serif"
      font-size={CHART_FONT}
      fill={CHART_INK}
    >
      <title id={`${id}-title`}>{title}</title>
      <desc id={`${id}-desc`}>{description}</desc>
      {children}
    </svg>
  );
}
