/**
 * Branding: the page (every role reads it), its POST (save through the API's branding service, or preview without
 * saving), and the preview's stylesheet, which carries only the two colours its URL names.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import {
  BRANDING_FIELDS,
  getBranding,
  validateBrandingPatch,
  type Branding,
  type BrandingField,
  type BrandingPatch,
} from '../../../core/branding/branding';
import { getOrganization } from '../../../core/access/organizations';
import { ApiError, type FieldError } from '../../../core/platform/errors';
import { changeConsoleBranding } from '../../../core/staff/console-branding';
import { canChangeBranding, requireBrandingChange } from '../../../core/staff/roles';
import type { StaffSession } from '../../../core/staff/sessions';
import { BrandingBody, type BrandingPageProps, type BrandingValues } from './branding-pages';
import type { ConsoleContext } from '../shared/console-context';
import { field, type FormBody } from '../shared/http';
import { actorOf, signedIn } from '../shared/signed-in';

export function brandingRoutes(router: Router, c: ConsoleContext): void {
  const { db, redis, config } = c.deps;

  async function render(ctx: Context, session: StaffSession, props: Partial<BrandingPageProps>, status = 200) {
    const saved = props.saved ?? formValues(await getBranding(db, session.organizationId));
    const organization = await getOrganization(db, session.organizationId);
    c.page(
      ctx,
      'Branding',
      <BrandingBody
        csrfToken={session.csrfToken}
        canChange={canChangeBranding(session.role)}
        organizationName={organization?.name ?? ''}
        values={props.values ?? saved}
        saved={saved}
        previewOf={props.previewOf ?? 'saved'}
        problem={props.problem}
        savedFields={props.savedFields}
      />,
      status,
    );
  }

  router.get('/console/branding', async (ctx) => {
    const session = await signedIn(c, ctx);
    if (!session) return;
    const saved =
      typeof ctx.query.saved === 'string'
        ? ctx.query.saved.split(',').filter((f) => (BRANDING_FIELDS as readonly string[]).includes(f))
        : undefined;
    await render(ctx, session, { savedFields: saved });
  });

  router.post('/console/branding', async (ctx) => {
    const { form, session } = await c.sessionForm(ctx);
    const values = submittedValues(form);
    const patch = changedFields(values, form);
    const preview = field(form, 'intent') === 'preview';
    if (!preview) requireBrandingChange(session.role);
    try {
      checkFormRules(c.deps.brandingFieldRules, patch);
      if (preview) {
        validateBrandingPatch(patch);
        return await render(ctx, session, { values, previewOf: 'submitted' });
      }
      const { changed } = await changeConsoleBranding({ db, redis }, actorOf(session), config.mode, patch);
      ctx.status = 303;
      ctx.redirect(`/console/branding?saved=${changed.join(',')}`);
    } catch (error) {
      // A refused value is shown on the form, with what the user typed; a refused role is the 403 page.
      if (!(error instanceof ApiError) || error.status !== 400) throw error;
      await render(ctx, session, { values, problem: problemOf(error) }, 400);
    }
  });

  router.get('/console/branding/preview.css', (ctx) => {
    const colour = (name: string, fallback: string) => {
      const value = ctx.query[name];
      return typeof value === 'string' && /^[0-9a-f]{6}$/.test(value) ? `#${value}` : fallback;
    };
    const primary = colour('primary', '#0b5cad');
    const secondary = colour('secondary', '#1b1f24');
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.type = 'text/css; charset=utf-8';
    ctx.body =
      `.portal-preview{--portal-primary:${primary};--portal-on-primary:${readableOn(primary)};` +
      `--portal-secondary:${secondary};--portal-on-secondary:${readableOn(secondary)}}\n`;
  });
}

function formValues(branding: Branding): BrandingValues {
  return Object.fromEntries(BRANDING_FIELDS.map((f) => [f, branding[f] ?? ''])) as BrandingValues;
}

function submittedValues(form: FormBody): BrandingValues {
  return Object.fromEntries(BRANDING_FIELDS.map((f) => [f, field(form, f).trim()])) as BrandingValues;
}

/**
 * The fields the user changed from the values the form was drawn from: the PATCH the form means. A field someone
 * else changed meanwhile, and this user left alone, keeps their change (merge).
 */
function changedFields(values: BrandingValues, form: FormBody): BrandingPatch {
  const patch: BrandingPatch = {};
  for (const f of BRANDING_FIELDS) {
    if (values[f] !== field(form, `saved.${f}`).trim()) patch[f] = values[f];
  }
  return patch;
}

const PATTERN_MESSAGES: Partial<Record<BrandingField, string>> = {
  supportEmail: 'must be an email address',
  supportPhone: 'must be a phone number in E.164 form, such as +61290000000',
};

/** The API's request schema's own limits (lengths, the email and phone forms), which its validator checks. */
function checkFormRules(properties: ConsoleContext['deps']['brandingFieldRules'], patch: BrandingPatch): void {
  const fieldErrors: FieldError[] = [];
  for (const [f, value] of Object.entries(patch) as [BrandingField, string][]) {
    const rules = properties[f] ?? {};
    if (rules.maxLength !== undefined && value.length > rules.maxLength) {
      fieldErrors.push({ path: `body.${f}`, message: `must be at most ${rules.maxLength} characters` });
    } else if (rules.pattern !== undefined && !new RegExp(rules.pattern).test(value)) {
      fieldErrors.push({ path: `body.${f}`, message: PATTERN_MESSAGES[f] ?? 'is not in the expected form' });
    }
  }
  if (fieldErrors.length > 0)
    throw new ApiError('invalid_request', 'Some fields are invalid.', { errors: fieldErrors });
}

function problemOf(error: ApiError): NonNullable<BrandingPageProps['problem']> {
  const fields: Partial<Record<BrandingField, string>> = {};
  for (const e of error.extra.errors ?? []) {
    const name = e.path.replace(/^body\./, '');
    if ((BRANDING_FIELDS as readonly string[]).includes(name)) fields[name as BrandingField] = e.message;
  }
  return { detail: error.message, fields };
}

/** White or the console's ink, whichever contrasts more with `hex` (WCAG relative luminance). */
function readableOn(hex: string): string {
  const channel = (i: number) => {
    const v = parseInt(hex.slice(i, i + 2), 16) / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
  const ink = 0.0144; // #1b1f24
  return 1.05 / (luminance + 0.05) >= (luminance + 0.05) / (ink + 0.05) ? '#ffffff' : '#1b1f24';
}
