/**
 * Webhooks: the receiver with its test event, the latest deliveries, the URL form (saying what this environment
 * accepts), and the secret's rotation and the clear, each confirmed.
 */
import type { WebhookConfigView } from '../../../core/webhooks/receiver-config';
import type { DeliveryView } from '../../../core/webhooks/deliveries';
import { CsrfField } from '../../layout';
import { RetryingSummary, StateBadge } from '../deliveries/delivery-state';
import { When } from '../shared/time';

export function WebhooksBody(props: {
  config: WebhookConfigView;
  csrfToken: string;
  canManage: boolean;
  /** What this environment accepts as a receiver URL. */
  accepts: string;
  /** The latest deliveries, newest first. */
  recent: DeliveryView[];
}) {
  const { config, csrfToken, canManage } = props;
  return (
    <>
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
        {canManage && config.enabled && <TestEventForm csrfToken={csrfToken} />}
      </section>
      <RecentDeliveries deliveries={props.recent} />
      {canManage ? (
        <>
          <UrlForm config={config} csrfToken={csrfToken} accepts={props.accepts} />
          {config.enabled && <ReceiverActions />}
        </>
      ) : (
        <p class="flash flash-info">Your role can read the receiver but not change it.</p>
      )}
    </>
  );
}

function TestEventForm({ csrfToken }: { csrfToken: string }) {
  return (
    <form method="post" action="/console/webhooks/test" class="test-event">
      <CsrfField token={csrfToken} />
      <p>
        Send a <code>test.ping</code> event to the receiver, signed and retried like every event.
      </p>
      <button type="submit">Send a test event</button>
    </form>
  );
}

function RecentDeliveries({ deliveries }: { deliveries: DeliveryView[] }) {
  return (
    <section class="card" aria-labelledby="recent">
      <h2 id="recent">Latest deliveries</h2>
      {deliveries.length === 0 ? (
        <p>No delivery yet.</p>
      ) : (
        <ul class="recent-deliveries">
          {deliveries.map((d) => (
            <li key={d.id}>
              <StateBadge delivery={d} />{' '}
              <a href={`/console/deliveries/${d.id}`}>
                {d.eventType}
                <span class="visually-hidden"> delivery {d.id}</span>
              </a>{' '}
              <span class="muted">
                <When iso={d.createdAt} />
              </span>
              <RetryingSummary delivery={d} />
            </li>
          ))}
        </ul>
      )}
      <p>
        <a href="/console/deliveries">See every delivery</a>
      </p>
    </section>
  );
}

function UrlForm(props: { config: WebhookConfigView; csrfToken: string; accepts: string }) {
  const { config, csrfToken } = props;
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
          {props.accepts} The first time, a signing secret is made and shown once.
        </p>
        <button type="submit">Save URL</button>
      </form>
    </section>
  );
}

function ReceiverActions() {
  return (
    <section class="card" aria-labelledby="actions">
      <h2 id="actions">Rotate or clear</h2>
      <p>Each asks you to confirm first.</p>
      <ul class="actions">
        <li>
          <a class="button-link secondary" href="/console/webhooks/rotate">
            Rotate the signing secret
          </a>
        </li>
        <li>
          <a class="button-link secondary" href="/console/webhooks/clear">
            Clear the receiver
          </a>
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
