/** API keys: the list, the mint form (scopes as checkboxes), the secret shown once, and the revocation's confirmation. */
import type { ApiKey } from '../../../core/access/api-keys';
import { SCOPES } from '../../../core/access/scopes';
import type { ConsoleKey } from '../../../core/staff/console-keys';
import { CsrfField } from '../../layout';

export function KeysBody(props: { keys: ConsoleKey[]; csrfToken: string; canManage: boolean; keyKind: string }) {
  return (
    <>
      <section class="card" aria-labelledby="keys">
        <h2 id="keys">Your {props.keyKind} keys</h2>
        {props.keys.length === 0 ? (
          <p>No keys yet.</p>
        ) : (
          <div class="table-wrap" tabIndex={0} role="region" aria-label="API keys table">
            <KeyTable keys={props.keys} canManage={props.canManage} />
          </div>
        )}
      </section>
      {props.canManage ? (
        <MintForm csrfToken={props.csrfToken} keyKind={props.keyKind} />
      ) : (
        <p class="notice">Your role can read keys but not mint or revoke them.</p>
      )}
    </>
  );
}

function KeyTable({ keys, canManage }: { keys: ConsoleKey[]; canManage: boolean }) {
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">Prefix</th>
          <th scope="col">Name</th>
          <th scope="col">Scopes</th>
          <th scope="col">Read-only</th>
          <th scope="col">Limits (hour / day)</th>
          <th scope="col">Created by</th>
          <th scope="col">Last used</th>
          <th scope="col">Revoked</th>
          {canManage && <th scope="col">Action</th>}
        </tr>
      </thead>
      <tbody>
        {keys.map((k) => (
          <tr key={k.id}>
            <td>
              <code>{k.prefix}…</code>
            </td>
            <td>{k.name}</td>
            <td>{k.scopes.join(', ') || '(none)'}</td>
            <td>{k.readOnly ? 'yes' : 'no'}</td>
            <td>
              {k.hourlyLimit ?? '–'} / {k.dailyLimit ?? '–'}
            </td>
            <td>{k.createdBy ?? 'operator'}</td>
            <td>{k.lastUsedAt ?? 'never'}</td>
            <td>{k.revokedAt ?? 'no'}</td>
            {canManage && <td>{!k.revokedAt && <a href={`/console/keys/${k.id}/revoke`}>Revoke {k.name}</a>}</td>}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function MintForm({ csrfToken, keyKind }: { csrfToken: string; keyKind: string }) {
  return (
    <section class="card" aria-labelledby="mint">
      <h2 id="mint">Mint a {keyKind} key</h2>
      <form method="post" action="/console/keys">
        <CsrfField token={csrfToken} />
        <label for="name">Name</label>
        <input id="name" name="name" type="text" required maxLength={100} />
        <fieldset>
          <legend>Scopes</legend>
          {SCOPES.map((scope) => (
            <span key={scope}>
              <input type="checkbox" id={`scope-${scope}`} name="scopes" value={scope} />
              <label for={`scope-${scope}`}>{scope}</label>{' '}
            </span>
          ))}
        </fieldset>
        <div class="check">
          <input type="checkbox" id="read-only" name="read_only" value="yes" />
          <label for="read-only">Read-only (refused every write, whatever its scopes)</label>
        </div>
        <label for="hourly-limit">Requests per hour (optional)</label>
        <input id="hourly-limit" name="hourly_limit" type="number" min={1} max={999999999} />
        <label for="daily-limit">Requests per day (optional)</label>
        <input id="daily-limit" name="daily_limit" type="number" min={1} max={999999999} />
        <button type="submit">Mint key</button>
      </form>
    </section>
  );
}

export function MintedBody({ apiKey, secret }: { apiKey: ApiKey; secret: string }) {
  return (
    <section class="card" role="status">
      <p>
        The key <strong>{apiKey.name}</strong> is ready. This is the only time its secret is shown: copy it now and
        store it safely.
      </p>
      <p class="secret" id="secret">
        {secret}
      </p>
      <p>
        <a href="/console/keys">Back to API keys</a>
      </p>
    </section>
  );
}

export function RevokeConfirmBody({ apiKey, csrfToken }: { apiKey: ConsoleKey; csrfToken: string }) {
  return (
    <section class="card">
      <p>
        Revoke <strong>{apiKey.name}</strong> (<code>{apiKey.prefix}…</code>)? Requests with it are refused within a
        second. This cannot be undone.
      </p>
      <form method="post" action={`/console/keys/${apiKey.id}/revoke`}>
        <CsrfField token={csrfToken} />
        <button type="submit" class="danger">
          Revoke the key
        </button>{' '}
        <a href="/console/keys">Cancel</a>
      </form>
    </section>
  );
}
