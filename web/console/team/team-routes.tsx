/**
 * Team: every signed-in user sees who is on the team; owners invite (an emailed sign-in link), change roles and
 * remove users (after a confirmation). The role check is the first thing each write does (core/staff/team.ts).
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { ApiError } from '../../../core/platform/errors';
import { canManageTeam, requireTeamManagement } from '../../../core/staff/roles';
import type { StaffSession } from '../../../core/staff/sessions';
import { isStaffRole, listStaffUsers, type StaffRole } from '../../../core/staff/staff-users';
import {
  changeTeamMemberRole,
  findTeamMember,
  inviteTeamMember,
  removeTeamMember,
  type TeamDeps,
} from '../../../core/staff/team';
import type { ConsoleContext } from '../shared/console-context';
import { clearCookie, field, type FormBody } from '../shared/http';
import { actorOf, signedIn } from '../shared/signed-in';
import { RemoveConfirmBody, TeamBody, type TeamPageProps } from './team-pages';

const NOTICES: Record<string, string> = {
  invited: 'Invitation sent. The link in it works once, within 15 minutes.',
  'invited-unmailed':
    'The user was added, but the invitation could not be sent. They can ask for a sign-in link on the sign-in ' +
    'page with their address.',
  'role-changed': 'Role changed. The user’s sessions have ended; they sign in again with the new role.',
  'role-unchanged': 'The user already had that role; nothing changed.',
  removed: 'User removed. Their sessions have ended.',
};

export function teamRoutes(router: Router, c: ConsoleContext): void {
  const { db, redis, config, logger } = c.deps;
  const mode = config.mode;
  const deps: TeamDeps = { db, redis, logger, sessions: c.sessions, membership: c.membership, mail: c.linkDeps };

  async function render(ctx: Context, session: StaffSession, props: Partial<TeamPageProps> = {}, status = 200) {
    const users = await listStaffUsers(db, session.organizationId);
    c.page(
      ctx,
      'Team',
      <TeamBody
        users={users}
        me={session.userId}
        csrfToken={session.csrfToken}
        canManage={canManageTeam(session.role)}
        {...props}
      />,
      status,
    );
  }

  /** After a write: back to the page, or to sign-in if the write ended the owner's own session. */
  async function done(ctx: Context, session: StaffSession, notice: string) {
    ctx.status = 303;
    const still = await c.sessions.touch(ctx.cookies.get(c.names.session) ?? '');
    if (still && (await c.membership.current(still.organizationId, still.userId))) {
      return ctx.redirect(`/console/team?done=${notice}`);
    }
    clearCookie(ctx, c.names.session, c.secure);
    ctx.redirect('/console/sign-in');
    logger.info({ userId: session.userId }, 'console user ended their own session by a team change');
  }

  /** Runs a change; the last owner's refusal (409) is said on the Team page itself, with the same status. */
  async function refusedByState(ctx: Context, session: StaffSession, change: () => Promise<void>) {
    try {
      await change();
      return false;
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'invalid_state') throw error;
      await render(ctx, session, { refusal: error.message }, error.status);
      return true;
    }
  }

  router.get('/console/team', async (ctx) => {
    const session = await signedIn(c, ctx);
    if (!session) return;
    const done = typeof ctx.query.done === 'string' ? NOTICES[ctx.query.done] : undefined;
    await render(ctx, session, { notice: done });
  });

  router.post('/console/team', async (ctx) => {
    const { form, session } = await c.sessionForm(ctx);
    requireTeamManagement(session.role);
    const email = field(form, 'email').trim();
    const role = roleOf(form);
    try {
      const outcome = await inviteTeamMember(deps, actorOf(session), mode, { email, role });
      if (!outcome.mailed) logger.error({ err: outcome.error, userId: outcome.user.id }, 'invitation mail not sent');
      await done(ctx, session, outcome.mailed ? 'invited' : 'invited-unmailed');
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 400) throw error;
      await render(ctx, session, { problem: error.message, email, role }, 400);
    }
  });

  router.post('/console/team/:id/role', async (ctx) => {
    const { form, session } = await c.sessionForm(ctx);
    requireTeamManagement(session.role);
    const refused = await refusedByState(ctx, session, async () => {
      const { changed } = await changeTeamMemberRole(deps, actorOf(session), mode, ctx.params.id ?? '', roleOf(form));
      await done(ctx, session, changed ? 'role-changed' : 'role-unchanged');
    });
    if (refused) return;
  });

  router.get('/console/team/:id/remove', async (ctx) => {
    const session = await signedIn(c, ctx);
    if (!session) return;
    requireTeamManagement(session.role);
    const user = await findTeamMember(db, session.organizationId, ctx.params.id ?? '');
    c.page(
      ctx,
      'Remove a user',
      <RemoveConfirmBody user={user} csrfToken={session.csrfToken} me={user.id === session.userId} />,
    );
  });

  router.post('/console/team/:id/remove', async (ctx) => {
    const { session } = await c.sessionForm(ctx);
    await refusedByState(ctx, session, async () => {
      await removeTeamMember(deps, actorOf(session), mode, ctx.params.id ?? '');
      await done(ctx, session, 'removed');
    });
  });
}

function roleOf(form: FormBody): StaffRole {
  const role = field(form, 'role');
  if (!isStaffRole(role))
    throw new ApiError('invalid_request', 'Choose one of the roles: owner, admin, developer, viewer.');
  return role;
}
