/**
 * Branding: the form with the API's rules (only the fields the user changed are sent, so it merges as PATCH does;
 * an emptied field clears it; colours are #RRGGBB and cannot be cleared), and a preview of the debtor portal's header
 * drawn on the server from the saved or the submitted values. The page carries no script and no inline style (CSP):
 * the preview's colours come from a same-origin stylesheet whose URL names them (/console/branding/preview.css).
 */
import type { BrandingField } from '../../../core/branding/branding';
import { CsrfField } from '../../layout';

export const BRANDING_LABELS: Record<BrandingField, string> = {
  primaryColor: 'Primary colour',
  secondaryColor: 'Secondary colour',
  logoUrl: 'Logo URL',
  faviconUrl: 'Favicon URL',
  brandTagline: 'Tagline',
  supportEmail: 'Support email',
  supportPhone: 'Support phone',
  statementFooter: 'Statement footer',
};

const HINTS: Partial<Record<BrandingField, string>> = {
  primaryColor: '#RRGGBB, e.g. #1A2B3C. A colour cannot be cleared.',
  secondaryColor: '#RRGGBB, e.g. #F0A500. A colour cannot be cleared.',
  logoUrl: 'An absolute https:// URL.',
  faviconUrl: 'An absolute https:// URL.',
};

const FIELDS = Object.keys(BRANDING_LABELS) as BrandingField[];

export type BrandingValues = Record<BrandingField, string>;

export interface BrandingPageProps {
  csrfToken: string;
  canChange: boolean;
  organizationName: string;
  /** What the form's inputs show. */
  values: BrandingValues;
  /** The saved values the form was drawn from: only the fields that differ from them are sent. */
  saved: BrandingValues;
  /** Whose values the preview shows. */
  previewOf: 'saved' | 'submitted';
  /** A refused change: the catalogue's detail, and a message per field. */
  problem?: { detail: string; fields: Partial<Record<BrandingField, string>> };
  /** After a save: the fields it changed. */
  savedFields?: string[];
}

export function BrandingBody(props: BrandingPageProps) {
  return (
    <>
      {props.problem && (
        <div class="error-summary" role="alert" id="problem">
          <strong>The branding was not saved.</strong> {props.problem.detail}
          <ul>
            {Object.entries(props.problem.fields).map(([field, message]) => (
              <li key={field}>
                <a href={`#${field}`}>{`${BRANDING_LABELS[field as BrandingField]} ${message}.`}</a>
              </li>
            ))}
          </ul>
        </div>
      )}
      {props.savedFields && (
        <p class="notice" role="status">
          {props.savedFields.length === 0
            ? 'Nothing changed.'
            : `Saved: ${props.savedFields.map((f) => BRANDING_LABELS[f as BrandingField] ?? f).join(', ')}. ` +
              'Debtor portals show the new branding now.'}
        </p>
      )}
      <Preview {...props} />
      {props.canChange ? (
        <BrandingForm {...props} />
      ) : (
        <>
          <SavedTable values={props.saved} />
          <p class="flash flash-info">Your role can read the branding but not change it.</p>
        </>
      )}
    </>
  );
}

function BrandingForm(props: BrandingPageProps) {
  const fieldErrors = props.problem?.fields ?? {};
  return (
    <section class="card" aria-labelledby="edit">
      <h2 id="edit">Change the branding</h2>
      <p class="muted">Only the fields you change are saved. Empty a field to clear it.</p>
      <form method="post" action="/console/branding">
        <CsrfField token={props.csrfToken} />
        {FIELDS.map((field) => {
          const error = fieldErrors[field];
          const hint = HINTS[field];
          const described = [hint && `${field}-hint`, error && `${field}-error`].filter(Boolean).join(' ');
          return (
            <div key={field}>
              <label for={field}>{BRANDING_LABELS[field]}</label>
              {hint && (
                <span class="hint" id={`${field}-hint`}>
                  {hint}
                </span>
              )}
              {error && (
                <span class="field-error" id={`${field}-error`}>
                  {`${BRANDING_LABELS[field]} ${error}.`}
                </span>
              )}
              <input
                id={field}
                name={field}
                type={field === 'supportEmail' ? 'email' : field.endsWith('Url') ? 'url' : 'text'}
                value={props.values[field]}
                aria-invalid={error ? 'true' : undefined}
                aria-describedby={described || undefined}
              />
              <input type="hidden" name={`saved.${field}`} value={props.saved[field]} />
            </div>
          );
        })}
        <div class="actions">
          <button type="submit" name="intent" value="save">
            Save branding
          </button>
          <button type="submit" name="intent" value="preview" class="secondary">
            Preview without saving
          </button>
        </div>
      </form>
    </section>
  );
}

function SavedTable({ values }: { values: BrandingValues }) {
  return (
    <section class="card" aria-labelledby="saved">
      <h2 id="saved">Saved branding</h2>
      <table class="saved">
        <tbody>
          {FIELDS.map((field) => (
            <tr key={field}>
              <th scope="row">{BRANDING_LABELS[field]}</th>
              <td>{values[field] || <span class="muted">not set</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** The colours' query for the preview stylesheet: six hex digits each, or absent (the portal's defaults). */
export function previewStylesheetHref(values: BrandingValues): string {
  const query = new URLSearchParams();
  for (const [name, field] of [
    ['primary', 'primaryColor'],
    ['secondary', 'secondaryColor'],
  ] as const) {
    const hex = /^#([0-9A-Fa-f]{6})$/.exec(values[field])?.[1];
    if (hex) query.set(name, hex.toLowerCase());
  }
  const text = query.toString();
  return `/console/branding/preview.css${text ? `?${text}` : ''}`;
}

function Preview(props: BrandingPageProps) {
  const v = props.previewOf === 'submitted' && !props.problem ? props.values : props.saved;
  const contact = [v.supportEmail, v.supportPhone].filter(Boolean).join(' · ');
  return (
    <section class="card" aria-labelledby="preview-heading">
      <h2 id="preview-heading">Portal header preview</h2>
      <p class="muted" id="preview-of">
        {v === props.saved
          ? 'As debtors see it now (the saved branding).'
          : 'With the values you entered, not saved yet.'}
      </p>
      <link rel="stylesheet" href={previewStylesheetHref(v)} />
      <div class="portal-preview" aria-describedby="preview-of">
        <div class="portal-bar">
          <span class="portal-logo" title={v.logoUrl || undefined}>
            {v.logoUrl ? `Logo: ${hostOf(v.logoUrl)}` : 'No logo'}
          </span>
          <span class="portal-name">{props.organizationName}</span>
          {v.brandTagline && <span class="portal-tagline">{v.brandTagline}</span>}
        </div>
        <div class="portal-sub">
          <span>{contact ? `Questions? ${contact}` : 'No support contact set'}</span>
          <span class="portal-action">Make a payment</span>
        </div>
        {v.statementFooter && <p class="portal-footer">{v.statementFooter}</p>}
      </div>
      <p class="muted">
        The console does not load the logo itself (its pages fetch nothing from other sites); portals show the image at
        that address.
      </p>
    </section>
  );
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
