/**
 * The sign-up's signed-out pages besides the form: the answer to every sign-up (the same for any address), the
 * confirmation link's landing page with its one POST button, and the page for a link expired or used.
 */
import { CsrfField } from '../../layout';

export function SignUpCheckEmail() {
  return (
    <section class="card" role="status">
      <p>
        We have emailed the address you gave with what to do next. The link in that email works once, within 15 minutes.
        You can close this page.
      </p>
      <p>
        <a href="/console/sign-in">Back to sign-in</a>
      </p>
    </section>
  );
}

/** A GET of the link shows only this: mail scanners open every link, so creating the sandbox takes the POST. */
export function SignUpLanding({ csrfToken, token }: { csrfToken: string; token: string }) {
  return (
    <section class="card">
      <p>Create your sandbox organisation, with you as its owner.</p>
      <form method="post" action="/console/sign-up/confirm">
        <CsrfField token={csrfToken} />
        <input type="hidden" name="token" value={token} />
        <button type="submit">Create my sandbox</button>
      </form>
    </section>
  );
}

export function SignUpLinkRefused() {
  return (
    <section class="card">
      <p>This sign-up link has expired or has already been used. Links work once, within 15 minutes.</p>
      <p>
        <a href="/console/sign-up">Sign up again</a>
      </p>
    </section>
  );
}
