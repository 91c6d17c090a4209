/** Pieces every portal form page shares: the problem banner a field points at, the way back, a message form. */
import type { ComponentChildren } from 'preact';
import { CsrfField } from '../layout';

/**
 * The error summary first in the page when an answer was refused (GOV.UK's pattern): "There is a problem", then the
 * problem as a link to the field to correct (`field`, its id). `id` names the problem's own text, which the refused
 * field's `aria-describedby` points at.
 */
export function ProblemBanner(props: {
  id: string;
  problem?: ComponentChildren;
  field?: string;
  /** What to do about it, when the problem's own words are not enough: under the list. */
  children?: ComponentChildren;
}) {
  if (!props.problem) return null;
  const titleId = `${props.id}-title`;
  return (
    <div class="error-summary" role="alert" aria-labelledby={titleId}>
      <h2 id={titleId}>There is a problem</h2>
      <ul>
        <li id={props.id}>{props.field ? <a href={`#${props.field}`}>{props.problem}</a> : <p>{props.problem}</p>}</li>
      </ul>
      {props.children && <div class="error-summary-body">{props.children}</div>}
    </div>
  );
}

/**
 * The problem again right above the refused field, as GOV.UK repeats it there (the summary may have scrolled away on
 * a phone); `id` is what the field's `aria-describedby` names. Nothing when nothing was refused.
 */
export function FieldError(props: { id: string; problem?: string }) {
  if (!props.problem) return null;
  return (
    <p class="field-error" id={props.id}>
      <span class="visually-hidden">Error: </span>
      {props.problem}
    </p>
  );
}

/** A refused field's attributes, pointing at its ProblemBanner or FieldError; none when nothing was refused. */
export function invalidAttributes(problem: string | undefined, problemId: string) {
  return problem ? { 'aria-invalid': 'true' as const, 'aria-describedby': problemId } : {};
}

export function BackToAccount() {
  return (
    <p>
      <a href="/portal/debt">Back to your account</a>
    </p>
  );
}

export interface MessageFormProps {
  action: string;
  csrfToken: string;
  /** The field's name and id. */
  name: string;
  label: string;
  rows: number;
  maxLength: number;
  text?: string;
  problem?: string;
  button: string;
  /** What the page says above the form. */
  children: ComponentChildren;
}

/** A page that asks the debtor for free text (a dispute's reason, their circumstances): one field, one button. */
export function MessageForm(props: MessageFormProps) {
  const problemId = `${props.name}-problem`;
  return (
    <>
      <ProblemBanner id={problemId} problem={props.problem} field={props.name} />
      <section class="card">
        {props.children}
        <form method="post" action={props.action} class="stack">
          <CsrfField token={props.csrfToken} />
          <label for={props.name}>{props.label}</label>
          <FieldError id={`${props.name}-error`} problem={props.problem} />
          <textarea
            id={props.name}
            name={props.name}
            rows={props.rows}
            required
            maxLength={props.maxLength}
            {...invalidAttributes(props.problem, `${props.name}-error`)}
          >
            {props.text ?? ''}
          </textarea>
          <button type="submit" class="primary">
            {props.button}
          </button>
        </form>
        <BackToAccount />
      </section>
    </>
  );
}
