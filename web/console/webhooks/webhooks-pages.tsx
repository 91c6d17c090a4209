/** Webhooks: the receiver, its URL form, the test event, and the secret's rotation and the clear, each confirmed. */
import type { WebhookConfigView } from '../../../core/webhooks/receiver-config';
import { CsrfField } from '../../layout';

const NOTICES: Record<string, string> = {
  saved: 'The receiver URL was saved.',
  cleared: 'The receiver was cleared: no new events are delivered. Deliveries already under way continue.',
};

export function WebhooksBody(props: {
  config: WebhookConfigView;
  csrfToken: string;
  canManage: boolean;
  done?: string;
}) {
  const { config, csrfToken, canManage } = props;
  const notice = props.done ? NOTICES[props.done] : undefined;
  return (
    <>
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <section class="card" aria-labelledby="receiver">
        <h2 id="receiver">Receiver</h2>
        <dl class="facts">
          <dt>URL</dt>
          <dd>{config.url ? <code>{config.url}</code> : 'None: events are not delivered.'}</dd>
          <dt>Delivery</dt>
          <dd>{config.enabled ? 'Enabled' : 'Disabled'}</dd>
          <dt>Signing secret</dt>
          <dd>{config.secretPrefix ? <code>{config.secretPrefix}…</code> : 'None'}</dd>
        </dl>
        <p>
          <a href="/console/deliveries">See the deliveries</a>
        </p>
      </section>
      {canManage ? (
        <>
          <UrlForm config={config} csrfToken={csrfToken} />
          {config.enabled && <ReceiverActions csrfToken={csrfToken} />}
        </>
      ) : (
        <p class="notice">Your role can read the receiver but not change it.</p>
      )}
    </>
  );
}

function UrlForm({ config, csrfToken }: { config: WebhookConfigView; csrfToken: string }) {
  return (
    <section class="card" aria-labelledby="set-url">
      <h2 id="set-url">{config.enabled ? 'Change the receiver URL' : 'Set the receiver URL'}</h2>
      <form method="post" action="/console/webhooks">
        <CsrfField token={csrfToken} />
        <label for="url">Receiver URL</label>
        <input
          id="url"
          name="url"
          type="url"
          required
          maxLength={2048}
          value={config.url ?? ''}
          aria-describedby="url-help"
        />
        <p id="url-help" class="muted">
          An https URL whose host resolves to public addresses only. The first time, a signing secret is made and shown
          once.
        </p>
        <button type="submit">Save URL</button>
      </form>
    </section>
  );
}

function ReceiverActions({ csrfToken }: { csrfToken: string }) {
  return (
    <section class="card" aria-labelledby="actions">
      <h2 id="actions">Test, rotate or clear</h2>
      <form method="post" action="/console/webhooks/test">
        <CsrfField token={csrfToken} />
        <p>
          Send a <code>test.ping</code> event to the receiver, signed and retried like every event.
        </p>
        <button type="submit">Send a test event</button>
      </form>
      <ul class="actions">
        <li>
          <a href="/console/webhooks/rotate">Rotate the signing secret</a>
        </li>
        <li>
          <a href="/console/webhooks/clear">Clear the receiver</a>
        </li>
      </ul>
    </section>
  );
}

/** The new secret, on the one page that ever shows it. */
export function SecretBody({ config, secret }: { config: WebhookConfigView; secret: string }) {
  return (
    <section class="card" role="status">
      <p>
        Deliveries to <code>{config.url}</code> are now signed with this secret. This is the only time it is shown: copy
        it now and store it where your receiver reads it.
      </p>
      <p class="secret" id="secret">
        {secret}
      </p>
      <p>
        <a href="/console/webhooks">Back to Webhooks</a>
      </p>
    </section>
  );
}

export function ConfirmBody(props: { what: 'rotate' | 'clear'; config: WebhookConfigView; csrfToken: string }) {
  const rotate = props.what === 'rotate';
  return (
    <section class="card">
      {rotate ? (
        <p>
          Rotate the signing secret (<code>{props.config.secretPrefix}…</code>)? The old secret stops signing at once,
          retries of deliveries under way included; the new one is shown once.
        </p>
      ) : (
        <p>
          Clear the receiver <code>{props.config.url}</code>? No new events are delivered until a URL is set again;
          deliveries already under way continue. The secret is forgotten.
        </p>
      )}
      <form method="post" action={`/console/webhooks/${props.what}`}>
        <CsrfField token={props.csrfToken} />
        <button type="submit" class="danger">
          {rotate ? 'Rotate the secret' : 'Clear the receiver'}
        </button>{' '}
        <a href="/console/webhooks">Cancel</a>
      </form>
    </section>
  );
}
