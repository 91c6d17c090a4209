/** Pieces every portal form page shares: the problem banner a field points at, the way back, a message form. */
import type { ComponentChildren } from 'preact';
import { CsrfField } from '../layout';

/** The banner above a form whose answer was refused; `id` is what the refused field's `aria-describedby` names. */
export function ProblemBanner(props: { id: string; problem?: string }) {
  if (!props.problem) return null;
  return (
    <div class="problem" role="alert" id={props.id}>
      <p>{props.problem}</p>
    </div>
  );
}

/** A refused field's attributes, pointing at its ProblemBanner; none when nothing was refused. */
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
      <ProblemBanner id={problemId} problem={props.problem} />
      <section class="card">
        {props.children}
        <form method="post" action={props.action} class="stack">
          <CsrfField token={props.csrfToken} />
          <label for={props.name}>{props.label}</label>
          <textarea
            id={props.name}
            name={props.name}
            rows={props.rows}
            required
            maxLength={props.maxLength}
            {...invalidAttributes(props.problem, problemId)}
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
