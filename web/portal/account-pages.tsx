/** The contact preferences form and the "tell us about your circumstances" form. */
import { MAX_CIRCUMSTANCES_LENGTH } from '../../core/portal/circumstances';
import { CsrfField } from '../layout';
import { BackToAccount, MessageForm } from './form-parts';

export function PreferencesBody(props: { csrfToken: string; emailOptedOut: boolean }) {
  return (
    <section class="card">
      <form method="post" action="/portal/preferences" class="stack">
        <CsrfField token={props.csrfToken} />
        <fieldset>
          <legend>Can we email you about this account?</legend>
          <div class="choice">
            <input type="radio" id="email-yes" name="email" value="yes" checked={!props.emailOptedOut} />
            <label for="email-yes">Yes, email me reminders and receipts</label>
          </div>
          <div class="choice">
            <input type="radio" id="email-no" name="email" value="no" checked={props.emailOptedOut} />
            <label for="email-no">No, do not email me</label>
          </div>
        </fieldset>
        <p class="hint">
          If you say no, we will not email you about this account. You can still use this site, and we may write to you
          by post where the law requires it.
        </p>
        <button type="submit" class="primary">
          Save my preferences
        </button>
      </form>
      <BackToAccount />
    </section>
  );
}

export function CircumstancesBody(props: { csrfToken: string; text?: string; problem?: string }) {
  return (
    <MessageForm
      action="/portal/circumstances"
      csrfToken={props.csrfToken}
      name="circumstances"
      label="Your message"
      rows={6}
      maxLength={MAX_CIRCUMSTANCES_LENGTH}
      text={props.text}
      problem={props.problem}
      button="Send my message"
    >
      <p>
        If something makes it hard to pay, such as illness, losing your job or caring for someone, tell us here. We pass
        your message to the creditor so they can take it into account. It does not change your balance.
      </p>
    </MessageForm>
  );
}
