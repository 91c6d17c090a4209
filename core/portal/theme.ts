/**
 * The portal's colours from an organisation's branding, with readable fallbacks. The primary
 * colour is the header's background under white text, the buttons' under white text, and the colour of links on the
 * white cards and on the page's grey wash (the footer), so it must reach 4.5:1 against each (WCAG 2.2 AA for text);
 * the secondary colour is the header's accent strip, a non-text element, so 3:1 against white is enough. A colour
 * that falls short is replaced by the portal's default, whole. The backgrounds are the design system's --paper and
 * --wash (web/assets/design.css).
 */
import type { Branding } from '../branding/branding';

export const DEFAULT_PRIMARY = '#1d4f91';
export const DEFAULT_SECONDARY = '#2f6f4e';
const HEX = /^#?([0-9a-fA-F]{6})$/;
/** What the primary colour's text sits on, or sits under as white text: --paper and --wash. */
export const TEXT_BACKGROUNDS = ['#ffffff', '#f3f5f8'] as const;

export interface PortalTheme {
  primary: string;
  secondary: string;
  /** True when a branded colour was replaced because it was not readable. */
  primaryFellBack: boolean;
  secondaryFellBack: boolean;
}

function channel(value: number): number {
  const c = value / 255;
  return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

/** WCAG relative luminance of `#rrggbb`. */
export function luminance(hex: string): number {
  const digits = HEX.exec(hex)?.[1];
  if (!digits) throw new Error(`not a #RRGGBB colour: ${hex}`);
  const [r, g, b] = [0, 2, 4].map((i) => channel(parseInt(digits.slice(i, i + 2), 16)));
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

/** WCAG contrast ratio of two colours, from 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (light! + 0.05) / (dark! + 0.05);
}

function pick(
  value: string | null | undefined,
  fallback: string,
  minimum: number,
  backgrounds: readonly string[],
): { colour: string; fell: boolean } {
  if (!value || !HEX.test(value)) return { colour: fallback, fell: false };
  const colour = `#${HEX.exec(value)![1]!.toLowerCase()}`;
  const readable = backgrounds.every((background) => contrastRatio(colour, background) >= minimum);
  return readable ? { colour, fell: false } : { colour: fallback, fell: true };
}

export function portalTheme(branding: Pick<Branding, 'primaryColor' | 'secondaryColor'>): PortalTheme {
  const primary = pick(branding.primaryColor, DEFAULT_PRIMARY, 4.5, TEXT_BACKGROUNDS);
  const secondary = pick(branding.secondaryColor, DEFAULT_SECONDARY, 3, ['#ffffff']);
  return {
    primary: primary.colour,
    secondary: secondary.colour,
    primaryFellBack: primary.fell,
    secondaryFellBack: secondary.fell,
  };
}
