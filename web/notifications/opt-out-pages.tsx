/**
 * The opt-out link of every debtor email (docs/notifications.md): `GET /notifications/opt-out/<token>` lands on a
 * page that asks the debtor to confirm, and only the form's POST opts them out, so a mail scanner that opens every
 * link changes nothing. No sign-in: the token (unguessable, stored hashed) is the proof. The POST passes the same
 * CSRF checks as the console's anonymous forms: the browser's word on the request's origin, and a synchronizer token
 * kept in a short cookie. A malformed, unknown or foreign token gets one and the same "link does not work" page.
 * No script, plain language, works with JavaScript off.
 */
import type { Context, Middleware } from 'koa';
import type { ComponentChildren } from 'preact';
import type { Config } from '../../core/platform/config';
import type { Db } from '../../core/platform/db';
import { ApiError } from '../../core/platform/errors';
import type { Logger } from '../../core/platform/logger';
import { OPT_OUT_PATH, optOutByToken, resolveOptOutToken } from '../../core/notifications/opt-out-links';
import { checkCsrfToken, checkSameOrigin, preSessionToken, readForm } from '../console/shared/http';
import { CsrfField } from '../layout';
import { sendPage, setPageHeaders } from '../page';

export interface OptOutPagesDeps {
  config: Config;
  db: Db;
  logger: Logger;
  stylesheetHref: string;
}

export function optOutPages(deps: OptOutPagesDeps): Middleware {
  const secure = deps.config.console.secureCookies;
  const names = secure
    ? { session: '__Host-notifications_unused', preSession: '__Host-notifications_csrf' }
    : { session: 'notifications_unused', preSession: 'notifications_csrf' };
  const page = (ctx: Context, title: string, body: ComponentChildren, status = 200) =>
    sendPage(
      ctx,
      <NoticeLayout title={title} stylesheetHref={deps.stylesheetHref}>
        {body}
      </NoticeLayout>,
      status,
    );
  const unknownLink = (ctx: Context) =>
    page(
      ctx,
      'This link does not work',
      <p>
        This unsubscribe link is not valid. Please use the link in the most recent email we sent you, or reply to that
        email and ask us to stop.
      </p>,
      404,
    );

  return async (ctx, next) => {
    if (!ctx.path.startsWith(OPT_OUT_PATH)) {
      await next();
      return;
    }
    setPageHeaders(ctx);
    const token = ctx.path.slice(OPT_OUT_PATH.length);
    try {
      if (ctx.method === 'GET' || ctx.method === 'HEAD') {
        const target = await resolveOptOutToken(deps.db, token);
        if (!target) return unknownLink(ctx);
        const csrf = preSessionToken(ctx, names, secure);
        return page(
          ctx,
          'Stop emails about this debt',
          <>
            <p>
              You can ask us to stop sending you emails about your debt to <strong>{target.creditorName}</strong>.
            </p>
            <p>If you do, we will not email you again. The debt is still owed, and we may contact you in other ways.</p>
            <form method="post" action={`${OPT_OUT_PATH}${token}`}>
              <CsrfField token={csrf} />
              <button type="submit">Stop emails</button>
            </form>
          </>,
        );
      }
      if (ctx.method !== 'POST') throw new ApiError('method_not_allowed');
      checkSameOrigin(ctx, deps.config.publicBaseUrl);
      const form = await readForm(ctx);
      checkCsrfToken(ctx.cookies.get(names.preSession) ?? '', form);
      const target = await optOutByToken(deps.db, token);
      if (!target) return unknownLink(ctx);
      return page(
        ctx,
        'You will not get more emails',
        <p role="status">
          Done. We will not email you again about your debt to <strong>{target.creditorName}</strong>.
        </p>,
      );
    } catch (error) {
      const known = error instanceof ApiError ? error : new ApiError('internal_error');
      if (known.status >= 500) deps.logger.error({ err: error }, 'opt-out page failed');
      return page(
        ctx,
        known.status === 403 ? 'Please try again' : 'Something went wrong',
        <p>
          {known.status === 403
            ? 'The form had expired. Open the link in the email again and press the button.'
            : known.message}
        </p>,
        known.status,
      );
    }
  };
}

function NoticeLayout(props: { title: string; stylesheetHref: string; children: ComponentChildren }) {
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>{props.title}</title>
        <link rel="stylesheet" href={props.stylesheetHref} />
      </head>
      <body>
        <main id="main">
          <h1>{props.title}</h1>
          <section class="card">{props.children}</section>
        </main>
      </body>
    </html>
  );
}
