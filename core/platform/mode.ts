/** The two deployments of one codebase (DECISIONS.md §1): each has its own database and Temporal namespace. */
export const MODES = ['production', 'sandbox'] as const;

export type Mode = (typeof MODES)[number];
