/** Team: the organisation's users with their roles; for owners, invite, change a role, and remove with a confirmation. */
import { STAFF_ROLES, type StaffRole, type StaffUser } from '../../../core/staff/staff-users';
import { CsrfField } from '../../layout';

const ROLE_SAYS: Record<StaffRole, string> = {
  owner: 'everything, the team included',
  admin: 'keys, webhooks, branding, retries, recall',
  developer: 'test keys and webhooks on the sandbox host; reads in production',
  viewer: 'reads only',
};

export interface TeamPageProps {
  users: StaffUser[];
  me: string;
  csrfToken: string;
  canManage: boolean;
  notice?: string;
  /** A refused role change or removal (the last owner). */
  refusal?: string;
  problem?: string;
  email?: string;
  role?: StaffRole;
}

export function TeamBody(props: TeamPageProps) {
  const owners = props.users.filter((u) => u.role === 'owner').length;
  return (
    <>
      {props.notice && (
        <p class="notice" role="status">
          {props.notice}
        </p>
      )}
      {props.refusal && (
        <p class="flash flash-danger" role="alert">
          {props.refusal}
        </p>
      )}
      <section class="card" aria-labelledby="users">
        <h2 id="users">Users</h2>
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Users table">
          <table class="collapse">
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Added</th>
                {props.canManage && <th scope="col">Change role</th>}
                {props.canManage && <th scope="col">Remove</th>}
              </tr>
            </thead>
            <tbody>
              {props.users.map((u) => (
                <tr key={u.id}>
                  <td data-label="Email">
                    <span>
                      {u.email}
                      {u.id === props.me && <span class="muted"> (you)</span>}
                    </span>
                  </td>
                  <td data-label="Role">{u.role}</td>
                  <td class="nowrap" data-label="Added">
                    {u.createdAt.slice(0, 10)}
                  </td>
                  {props.canManage && (
                    <td data-label="Change role">
                      <RoleForm user={u} csrfToken={props.csrfToken} />
                    </td>
                  )}
                  {props.canManage && (
                    <td data-label="Remove">
                      {u.role === 'owner' && owners === 1 ? (
                        <span class="muted">the only owner</span>
                      ) : (
                        <a href={`/console/team/${u.id}/remove`}>
                          Remove<span class="visually-hidden"> {u.email}</span>
                        </a>
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <ul class="muted">
          {STAFF_ROLES.map((r) => (
            <li key={r}>
              <strong>{r}</strong>: {ROLE_SAYS[r]}
            </li>
          ))}
        </ul>
      </section>
      {props.canManage ? (
        <InviteForm {...props} />
      ) : (
        <p class="flash flash-info">Only an owner can invite users, change their roles or remove them.</p>
      )}
    </>
  );
}

function RoleForm({ user, csrfToken }: { user: StaffUser; csrfToken: string }) {
  const id = `role-${user.id}`;
  return (
    <form method="post" action={`/console/team/${user.id}/role`} class="inline-form">
      <CsrfField token={csrfToken} />
      <label for={id} class="visually-hidden">
        Role of {user.email}
      </label>
      <select id={id} name="role">
        {STAFF_ROLES.map((r) => (
          <option key={r} value={r} selected={r === user.role}>
            {r}
          </option>
        ))}
      </select>
      <button type="submit" class="secondary" aria-label={`Change the role of ${user.email}`}>
        Change
      </button>
    </form>
  );
}

function InviteForm(props: TeamPageProps) {
  return (
    <section class="card" aria-labelledby="invite">
      <h2 id="invite">Invite a user</h2>
      {props.problem && (
        <p class="flash flash-danger" role="alert" id="invite-problem">
          {props.problem}
        </p>
      )}
      <p class="muted">They get an email with a sign-in link (good once, within 15 minutes).</p>
      <form method="post" action="/console/team">
        <CsrfField token={props.csrfToken} />
        <label for="invite-email">Email address</label>
        <input
          id="invite-email"
          name="email"
          type="email"
          required
          value={props.email ?? ''}
          aria-invalid={props.problem ? 'true' : undefined}
          aria-describedby={props.problem ? 'invite-problem' : undefined}
        />
        <label for="invite-role">Role</label>
        <select id="invite-role" name="role">
          {STAFF_ROLES.map((r) => (
            <option key={r} value={r} selected={r === (props.role ?? 'viewer')}>
              {r}
            </option>
          ))}
        </select>
        <button type="submit">Send invitation</button>
      </form>
    </section>
  );
}

export function RemoveConfirmBody({ user, csrfToken, me }: { user: StaffUser; csrfToken: string; me: boolean }) {
  return (
    <section class="card">
      <p>
        Remove <strong>{user.email}</strong> ({user.role}) from the console? Their sessions end at once and they can no
        longer sign in.{me ? ' This is you: you will be signed out.' : ''}
      </p>
      <form method="post" action={`/console/team/${user.id}/remove`}>
        <CsrfField token={csrfToken} />
        <button type="submit" class="danger">
          Remove the user
        </button>{' '}
        <a href="/console/team">Cancel</a>
      </form>
    </section>
  );
}
