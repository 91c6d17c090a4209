/** The signed-out pages: the email form, "check your email", and a link's landing page with its one POST button. */
import { CsrfField } from '../../layout';

/** `signUp`: on the sandbox host, where anyone may sign up, the form links to the sign-up form. */
export function SignInForm(props: { csrfToken: string; email?: string; signUp?: boolean }) {
  const { csrfToken, email = '', signUp = false } = props;
  return (
    <section class="card">
      <p>Enter the email address of your console account. We will send you a link that signs you in.</p>
      <form method="post" action="/console/sign-in">
        <CsrfField token={csrfToken} />
        <label for="email">Email address</label>
        <input id="email" name="email" type="email" autoComplete="email" required value={email} />
        <button type="submit">Email me a sign-in link</button>
      </form>
      {signUp && (
        <p>
          New to the sandbox? <a href="/console/sign-up">Sign up</a>
        </p>
      )}
    </section>
  );
}

export function CheckYourEmail() {
  return (
    <section class="card" role="status">
      <p>
        If that address has a console account, a sign-in link is on its way. It works once, within 15 minutes. You can
        close this page.
      </p>
      <p>
        <a href="/console/sign-in">Back to sign-in</a>
      </p>
    </section>
  );
}

/**
 * A GET of the link shows only this: mail scanners open every link, so signing in takes the button's POST, which
 * carries the token in the form (and the pre-session CSRF token).
 */
export function LinkLanding({ csrfToken, token }: { csrfToken: string; token: string }) {
  return (
    <section class="card">
      <p>Continue to sign in to the client console.</p>
      <form method="post" action="/console/sign-in/link">
        <CsrfField token={csrfToken} />
        <input type="hidden" name="token" value={token} />
        <button type="submit">Sign in</button>
      </form>
    </section>
  );
}

export function LinkRefused() {
  return (
    <section class="card">
      <p>This sign-in link has expired or has already been used. Links work once, within 15 minutes.</p>
      <p>
        <a href="/console/sign-in">Ask for a new link</a>
      </p>
    </section>
  );
}
