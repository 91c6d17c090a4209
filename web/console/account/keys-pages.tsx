/**
 * API keys: the list (each key summed up in a row that fits the page), a key's own page, the mint form (scopes as
 * checkboxes), the secret shown once, and the revocation's confirmation.
 */
import type { ApiKey } from '../../../core/access/api-keys';
import { SCOPES } from '../../../core/access/scopes';
import type { ConsoleKey } from '../../../core/staff/console-keys';
import { CsrfField } from '../../layout';
import { When } from '../shared/time';

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
        <p class="flash flash-info">Your role can read keys but not mint or revoke them.</p>
      )}
    </>
  );
}

/** A key's scopes in a few words: `all`, up to three by name, or two and how many more (the key's page lists them). */
export function scopeSummary(scopes: readonly string[]): string {
  if (scopes.length === 0) return 'none';
  if (SCOPES.every((scope) => scopes.includes(scope))) return 'all';
  if (scopes.length <= 3) return scopes.join(', ');
  return `${scopes.slice(0, 2).join(', ')} and ${scopes.length - 2} more`;
}

function KeyTable({ keys, canManage }: { keys: ConsoleKey[]; canManage: boolean }) {
  return (
    <table class="keys collapse">
      <thead>
        <tr>
          <th scope="col">Key</th>
          <th scope="col">Scopes</th>
          <th scope="col">Last used</th>
          <th scope="col">Status</th>
          {canManage && <th scope="col">Action</th>}
        </tr>
      </thead>
      <tbody>
        {keys.map((k) => (
          <tr key={k.id}>
            <td class="key-name" data-label="Key">
              <span>
                <a href={`/console/keys/${k.id}`}>{k.name}</a>
                <br />
                <code>{k.prefix}…</code>
              </span>
            </td>
            <td data-label="Scopes">
              <span>
                {scopeSummary(k.scopes)}
                {k.readOnly && <span class="muted"> (read-only)</span>}
              </span>
            </td>
            <td data-label="Last used">
              <When iso={k.lastUsedAt} none="never" />
            </td>
            <td data-label="Status">
              {k.revokedAt ? (
                <span>
                  Revoked <When iso={k.revokedAt} />
                </span>
              ) : (
                'Active'
              )}
            </td>
            {canManage && (
              <td data-label="Action">
                {!k.revokedAt && (
                  <a class="button-link danger" href={`/console/keys/${k.id}/revoke`}>
                    Revoke<span class="visually-hidden"> {k.name}</span>
                  </a>
                )}
              </td>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** One key: everything the table summarises (every scope, the limits, who minted it), and its revocation. */
export function KeyBody({ apiKey: k, canManage }: { apiKey: ConsoleKey; canManage: boolean }) {
  return (
    <section class="card" aria-labelledby="key">
      <h2 id="key">{k.name}</h2>
      <dl class="facts">
        <dt>Prefix</dt>
        <dd>
          <code>{k.prefix}…</code>
        </dd>
        <dt>Scopes</dt>
        <dd>
          {k.scopes.length === 0 ? (
            'none'
          ) : (
            <ul class="scopes">
              {k.scopes.map((scope) => (
                <li key={scope}>
                  <code>{scope}</code>
                </li>
              ))}
            </ul>
          )}
        </dd>
        <dt>Read-only</dt>
        <dd>{k.readOnly ? 'Yes: every write is refused, whatever its scopes' : 'No'}</dd>
        <dt>Requests per hour</dt>
        <dd>{k.hourlyLimit ?? 'No limit of its own'}</dd>
        <dt>Requests per day</dt>
        <dd>{k.dailyLimit ?? 'No limit of its own'}</dd>
        <dt>Minted</dt>
        <dd>
          <When iso={k.createdAt} /> by {k.createdBy ?? 'an operator'}
        </dd>
        <dt>Last used</dt>
        <dd>
          <When iso={k.lastUsedAt} none="never" />
        </dd>
        <dt>Status</dt>
        <dd>
          {k.revokedAt ? (
            <>
              Revoked <When iso={k.revokedAt} />
            </>
          ) : (
            'Active'
          )}
        </dd>
      </dl>
      <p class="actions">
        {canManage && !k.revokedAt && (
          <a class="button-link danger" href={`/console/keys/${k.id}/revoke`}>
            Revoke this key
          </a>
        )}
        <a href="/console/keys">Back to API keys</a>
      </p>
    </section>
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
        <a href={`/console/keys/${apiKey.id}`}>See the key</a> · <a href="/console/keys">Back to API keys</a>
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
