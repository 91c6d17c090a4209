/**
 * Organisation branding for the debtor portal (DECISIONS.md §2, spec §4 "PATCH /v1/organization/branding rules").
 * An organisation that never set any has every field null (the portal then uses its own theme), not a 404.
 * PATCH merges: absent or null leaves a field alone, an empty string clears a clearable field.
 */
import type { Db } from '../platform/db';
import { ApiError, type FieldError } from '../platform/errors';

export const BRANDING_FIELDS = [
  'primaryColor',
  'secondaryColor',
  'logoUrl',
  'faviconUrl',
  'brandTagline',
  'supportEmail',
  'supportPhone',
  'statementFooter',
] as const;

export type BrandingField = (typeof BRANDING_FIELDS)[number];

export type Branding = Record<BrandingField, string | null> & { updatedAt: string | null };

export type BrandingPatch = Partial<Record<BrandingField, string | null>>;

const COLOR_FIELDS: readonly BrandingField[] = ['primaryColor', 'secondaryColor'];
const URL_FIELDS: readonly BrandingField[] = ['logoUrl', 'faviconUrl'];
/** Colours cannot be cleared (the portal needs a valid colour or its default, and "" is not a colour). */
const CLEARABLE_FIELDS: readonly BrandingField[] = BRANDING_FIELDS.filter((f) => !COLOR_FIELDS.includes(f));

const COLUMN = {
  primaryColor: 'primary_color',
  secondaryColor: 'secondary_color',
  logoUrl: 'logo_url',
  faviconUrl: 'favicon_url',
  brandTagline: 'brand_tagline',
  supportEmail: 'support_email',
  supportPhone: 'support_phone',
  statementFooter: 'statement_footer',
} as const satisfies Record<BrandingField, string>;

type BrandingColumn = (typeof COLUMN)[BrandingField];

/** A row of `branding`: null where a field is not set. */
export type BrandingRow = Record<BrandingColumn, string | null> & {
  organization_id: string;
  created_at: Date;
  updated_at: Date;
};

const HEX_COLOR = /^#[0-9A-Fa-f]{6}$/;
const MAX_URL_LENGTH = 2048;

export const EMPTY_BRANDING: Branding = {
  ...(Object.fromEntries(BRANDING_FIELDS.map((f) => [f, null])) as Record<BrandingField, null>),
  updatedAt: null,
};

function toBranding(row: BrandingRow | undefined): Branding {
  if (!row) return { ...EMPTY_BRANDING };
  const fields = Object.fromEntries(BRANDING_FIELDS.map((f) => [f, row[COLUMN[f]] ?? null]));
  return { ...(fields as Record<BrandingField, string | null>), updatedAt: row.updated_at.toISOString() };
}

/** The columns `toBranding` reads, by name rather than `*`. */
const SELECTED = [...BRANDING_FIELDS.map((f) => COLUMN[f]), 'updated_at'];

/**
 * Unnamed (core/platform/prepared.ts): the portal reads it only on a branding cache miss (a change, or once per
 * `BRANDING_CACHE_TTL_SECONDS`), or with Redis not answering, when the page is refused for want of the session anyway.
 */
export async function getBranding(db: Db, organizationId: string): Promise<Branding> {
  return toBranding(
    await db('branding').where({ organization_id: organizationId }).first<BrandingRow | undefined>(SELECTED),
  );
}

function isHttpsUrl(value: string): boolean {
  if (value.length > MAX_URL_LENGTH) return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.hostname !== '' && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}

/** Colour and URL rules, with the spec's codes; colours are checked first (the console's preview checks with them too). */
export function validateBrandingPatch(patch: BrandingPatch): void {
  const badColors: FieldError[] = COLOR_FIELDS.filter(
    (f) => typeof patch[f] === 'string' && !HEX_COLOR.test(patch[f]),
  ).map((f) => ({ path: `body.${f}`, message: 'must be a #RRGGBB hex colour' }));
  if (badColors.length > 0) throw new ApiError('invalid_color', undefined, { errors: badColors });
  const badUrls: FieldError[] = URL_FIELDS.filter((f) => {
    const value = patch[f];
    return typeof value === 'string' && value !== '' && !isHttpsUrl(value);
  }).map((f) => ({ path: `body.${f}`, message: 'must be an absolute https URL' }));
  if (badUrls.length > 0) {
    throw new ApiError('invalid_url', 'logoUrl and faviconUrl must be absolute https URLs.', { errors: badUrls });
  }
}

/** The columns a patch sets: null/absent fields are skipped, "" clears a clearable field. */
function patchColumns(patch: BrandingPatch): Partial<Record<BrandingColumn, string | null>> {
  const columns: Partial<Record<BrandingColumn, string | null>> = {};
  for (const field of BRANDING_FIELDS) {
    const value = patch[field];
    if (value === undefined || value === null) continue;
    columns[COLUMN[field]] = value === '' && CLEARABLE_FIELDS.includes(field) ? null : value;
  }
  return columns;
}

/**
 * Merges a PATCH into the organisation's branding (creating the row on first use). Only the columns the patch sets
 * are written, so two concurrent PATCHes of different fields both land. An empty patch writes nothing.
 */
export async function updateBranding(db: Db, organizationId: string, patch: BrandingPatch): Promise<Branding> {
  validateBrandingPatch(patch);
  const columns = patchColumns(patch);
  if (Object.keys(columns).length === 0) return getBranding(db, organizationId);
  const [row] = await db('branding')
    .insert({ organization_id: organizationId, ...columns })
    .onConflict('organization_id')
    .merge({ ...columns, updated_at: db.fn.now(3) })
    .returning('*');
  return toBranding(row);
}
