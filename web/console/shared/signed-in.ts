/** The session of a signed-in GET of the console's pages; a signed-out visitor is sent to the sign-in page. */
import type { Context } from 'koa';
import type { StaffSession } from '../../../core/staff/sessions';
import type { ConsoleContext } from './console-context';

export async function signedIn(c: ConsoleContext, ctx: Context): Promise<StaffSession | null> {
  const session = await c.session(ctx);
  if (!session) ctx.redirect('/console/sign-in');
  return session;
}

/** The actor a core write records: the session's user (its role is checked first by the write). */
export function actorOf(session: StaffSession) {
  const { userId, organizationId, email, role } = session;
  return { userId, organizationId, email, role };
}
