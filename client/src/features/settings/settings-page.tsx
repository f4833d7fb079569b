import { useState, type FormEvent } from 'react';
import { StatusTicks } from '../../ui/status-ticks';
import { useToast } from '../../ui/toasts';
import { formatDateTime } from '../../lib/format';
import { useLiveRecord } from '../../lib/live-records';
import { setProviderTemplates } from '../../lib/cache-patches';
import { trpc, type TOutputs } from '../../lib/trpc';
import { QueryStatus } from '../../ui/query-status';
import { BusinessHoursPanel } from '../business-hours';
import { WorkloadPanel } from '../ownership';
import { BusinessNumbersPanel } from './business-numbers-panel';
import { STATUS_TONE } from './connection-result';
import { FirmWordingPanel } from './firm-wording-panel';
import { ReadReceiptsPanel } from './read-receipts-panel';
import { SignInPolicyPanel } from './sign-in-policy-panel';
import { YourSecurity } from './your-security';
import { SigningKeyPanel } from './signing-key-panel';
import { UsersPanel } from './users-panel';

type TChatSettings = TOutputs['settings']['chat'];

export function SettingsPage({ role }: { role: 'director' | 'staff' }) {
  const settings = trpc.settings.chat.useQuery();
  return (
    <QueryStatus query={settings} loading="Loading settings…" padded={false}>
      {(s) => <ChatSettings s={s} role={role} />}
    </QueryStatus>
  );
}

/** The firm's number, the webhook, the connection check, templates and (for directors) people. */
function ChatSettings({ s, role }: { s: TChatSettings; role: 'director' | 'staff' }) {
  const toast = useToast();
  const check = trpc.settings.checkConnection.useMutation();
  const [copied, setCopied] = useState(false);

  const copy = async (text: string) => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
      setTimeout(() => setCopied(false), 2000);
    } catch {
      toast('error', 'Copy is not allowed here: select the address and copy it by hand.');
    }
  };

  const isDirector = role === 'director';

  return (
    <div className="page settings">
      <div className="page-header">
        <div>
          <h1>Settings · Chat</h1>
          <p className="muted">
            The firm’s chat number, the provider webhook and a connection check
            {isDirector ? ', the workload and the people who can sign in' : ''}.
          </p>
        </div>
        <span className={`mode-badge ${s.mode}`} aria-label={`Mode: ${s.mode === 'live' ? 'Live' : 'Demo'}`}>
          {s.mode === 'live' ? 'Live' : 'Demo'}
        </span>
      </div>
      <div className="settings-grid">
        <section className="card" aria-labelledby="number-title">
          <h2 id="number-title">Firm number</h2>
          <p className="big-value">{s.firmPhone}</p>
          <p className="muted">
            {s.mode === 'live'
              ? 'Messages go to the provider and are stored on the client’s file.'
              : 'Demo mode: no MESSAGING_API_KEY is set, so messages are recorded here and nothing is sent.'}
          </p>
        </section>

        <section className="card" aria-labelledby="webhook-title">
          <h2 id="webhook-title">Webhook URL</h2>
          <p className="muted">Register this address at the provider, with the webhook secret as a custom header.</p>
          <div className="copy-row">
            <input readOnly value={s.webhookUrl} aria-label="Webhook URL" onFocus={(e) => e.currentTarget.select()} />
            <button type="button" className="button" onClick={() => void copy(s.webhookUrl)}>
              {copied ? 'Copied' : 'Copy'}
            </button>
          </div>
          {isDirector && <SiteUrlWarnings />}
        </section>
        {isDirector && <WebhookSetup />}

        <TestMessageForm />
        <TemplatesCard role={role} mode={s.mode} />

        <section className="card" aria-labelledby="check-title">
          <h2 id="check-title">Provider connection</h2>
          <p className="muted">Reads the business profile at the provider. It never sends a message.</p>
          <button
            type="button"
            className="button primary"
            onClick={() => check.mutate()}
            disabled={!isDirector || check.isPending}
            aria-describedby={isDirector ? undefined : 'check-reason'}
          >
            {check.isPending ? 'Checking…' : 'Check connection'}
          </button>
          {!isDirector && (
            <p id="check-reason" className="muted small">
              Only directors can check the provider connection.
            </p>
          )}
          {check.data && (
            <div className={`connection-result tone-${STATUS_TONE[check.data.status] ?? 'info'}`} role="status">
              <strong>{check.data.status}</strong>
              <span>{check.data.detail}</span>
            </div>
          )}
          {check.error && (
            <p className="form-error" role="alert">
              {check.error.message}
            </p>
          )}
        </section>
        <SigningKeyPanel />
      </div>
      {isDirector && <BusinessNumbersPanel />}
      <YourSecurity />
      <SignInPolicyPanel isDirector={isDirector} />
      {isDirector && <ReadReceiptsPanel />}
      <BusinessHoursPanel role={role} />
      {isDirector && <FirmWordingPanel />}
      {isDirector && <WorkloadPanel />}
      {isDirector && <UsersPanel />}
    </div>
  );
}

type TWebhookStatus = TOutputs['settings']['webhookStatus'];

const OUTCOME_TEXT: Record<NonNullable<TWebhookStatus['lastDelivery']>['outcome'], string> = {
  accepted: 'Accepted',
  unauthorized: 'Refused: no valid secret or signature',
  rejected: 'Refused: not a delivery the server could read',
  failed: 'Not stored: the server could not save it (the provider retries)',
};

// Refreshed while open: a director registering the webhook watches the first delivery arrive.
const useWebhookStatus = () => trpc.settings.webhookStatus.useQuery(undefined, { refetchInterval: 10_000 });

/** Under the address itself: why the provider may not be able to reach it. */
function SiteUrlWarnings() {
  const warnings = useWebhookStatus().data?.siteUrlWarnings ?? [];
  if (warnings.length === 0) return null;
  return (
    <div className="setup-notice tone-warn site-url-warning" role="alert">
      <strong>The provider may not reach this address</strong>
      {warnings.map((warning) => (
        <span key={warning}>{warning}</span>
      ))}
    </div>
  );
}

/** What a director needs to register the webhook, and whether the provider is getting through. */
function WebhookSetup() {
  const status = useWebhookStatus();
  return (
    <section className="card webhook-setup" aria-labelledby="webhook-setup-title">
      <h2 id="webhook-setup-title">Webhook setup</h2>
      <QueryStatus query={status} loading="Loading the webhook status…" padded={false}>
        {(w) => <WebhookFacts w={w} />}
      </QueryStatus>
    </section>
  );
}

function WebhookFacts({ w }: { w: TWebhookStatus }) {
  const last = w.lastDelivery;
  return (
    <dl className="webhook-facts">
      <dt>Header</dt>
      <dd>
        In the provider’s custom headers: <code>{w.secretHeader}</code> with the webhook secret as its value. Or have a proxy in front sign
        each body:{' '}
        {w.signatureHeaders.map((h, i) => (
          <span key={h}>
            {i > 0 && ' or '}
            <code>{h}</code>
          </span>
        ))}{' '}
        = hex HMAC-SHA256 of the body, keyed by the secret.
      </dd>
      <dt>Webhook secret</dt>
      <dd>
        {w.unauthenticatedAllowed ? (
          <span className="setup-state bad">Not checked: ALLOW_UNAUTHENTICATED_WEBHOOKS=true (local development only)</span>
        ) : w.secretConfigured ? (
          <span className="setup-state ok">Set (MESSAGING_WEBHOOK_SECRET)</span>
        ) : (
          <span className="setup-state bad">Not set: every delivery is refused until MESSAGING_WEBHOOK_SECRET is set</span>
        )}
      </dd>
      <dt>Verify token</dt>
      <dd>
        {w.verifyTokenConfigured ? (
          <span className="setup-state ok">Set (MESSAGING_WEBHOOK_VERIFY_TOKEN)</span>
        ) : (
          <span className="setup-state muted">
            Not set: a GET verification handshake is refused (needed only if the provider asks for one)
          </span>
        )}
      </dd>
      <dt>Last delivery</dt>
      <dd className="last-delivery" data-outcome={last?.outcome ?? 'none'}>
        {last ? (
          <>
            <time dateTime={last.at.toISOString()}>{formatDateTime(last.at)}</time> ·{' '}
            <span className={`setup-state ${last.outcome === 'accepted' ? 'ok' : 'bad'}`}>{OUTCOME_TEXT[last.outcome]}</span>{' '}
            <span className="muted">(HTTP {last.httpStatus})</span>
          </>
        ) : (
          <span className="muted">None received yet</span>
        )}
      </dd>
      {last && last.outcome !== 'accepted' && (
        <>
          <dt>Last accepted</dt>
          <dd>
            {w.lastAcceptedAt ? (
              <time dateTime={w.lastAcceptedAt.toISOString()}>{formatDateTime(w.lastAcceptedAt)}</time>
            ) : (
              <span className="muted">Never</span>
            )}
          </dd>
        </>
      )}
    </dl>
  );
}

// A test number has usually not written in the last 24 hours: a template without values is the
// test that reaches it (hello_world, when the provider lists it).
const FREE_TEXT = 'free-text';

function TestMessageForm() {
  const [to, setTo] = useState('');
  const [body, setBody] = useState('This is a test message from the firm.');
  const catalogue = trpc.chat.providerTemplates.useQuery();
  const simple = (catalogue.data?.templates ?? []).filter((t) => t.status === 'APPROVED' && t.paramCount === 0);
  const [chosen, setChosen] = useState<string | null>(null);
  const preferred = simple.find((t) => t.name === 'hello_world') ?? simple[0];
  const kind = chosen ?? (preferred ? `${preferred.name}|${preferred.language}` : FREE_TEXT);
  const template = simple.find((t) => `${t.name}|${t.language}` === kind);
  const sendTest = trpc.settings.sendTest.useMutation();
  // Until the catalogue answers, "Send as" may yet change to a template: nothing goes before it is settled.
  const settling = catalogue.isPending;
  const fieldErrors = sendTest.error?.data?.fieldErrors;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    sendTest.mutate(template ? { to, name: template.name, language: template.language, params: [] } : { to, body });
  };
  return (
    <form className="card" onSubmit={submit} aria-labelledby="test-title">
      <h2 id="test-title">Send a test message</h2>
      <label className="field">
        <span>Number</span>
        <input
          required
          inputMode="tel"
          placeholder="+44 7700 900000"
          value={to}
          onChange={(e) => setTo(e.target.value)}
          aria-invalid={Boolean(fieldErrors?.to)}
        />
        {fieldErrors?.to && <small className="field-error">{fieldErrors.to.join(' ')}</small>}
      </label>
      <label className="field">
        <span>Send as</span>
        <select value={kind} onChange={(e) => setChosen(e.target.value)} disabled={settling}>
          {settling && <option value={FREE_TEXT}>Looking up the approved templates…</option>}
          {simple.map((t) => (
            <option key={`${t.name}|${t.language}`} value={`${t.name}|${t.language}`}>
              Approved template {t.name} ({t.language})
            </option>
          ))}
          {!settling && <option value={FREE_TEXT}>Free text (only reaches a number that wrote in the last 24 hours)</option>}
        </select>
      </label>
      {template ? (
        <p className="template-preview" aria-label="Preview">
          {template.body}
        </p>
      ) : (
        <label className="field">
          <span>Text</span>
          <textarea required rows={2} value={body} onChange={(e) => setBody(e.target.value)} />
        </label>
      )}
      <button type="submit" className="button primary" disabled={sendTest.isPending || settling}>
        {sendTest.isPending ? 'Sending…' : 'Send test'}
      </button>
      {sendTest.data && <TestResult key={sendTest.data.id} sent={sendTest.data} />}
      {sendTest.error && !fieldErrors && (
        <p className="form-error" role="alert">
          {sendTest.error.message}
        </p>
      )}
    </form>
  );
}

type TSentTest = TOutputs['settings']['sendTest'];

const PROGRESS: Record<string, number> = { pending: 0, sent: 1, delivered: 2, read: 3, failed: 4 };

/**
 * How far the test message got, followed as its receipts arrive (live updates): the send's answer
 * says only that the provider took it, and a failed receipt may come a second later.
 */
function TestResult({ sent }: { sent: TSentTest }) {
  const live = useLiveRecord(sent.id);
  // A live copy may be older than the send's own answer (published while it was still pending).
  const record = live && (PROGRESS[live.status ?? 'pending'] ?? 0) >= (PROGRESS[sent.status ?? 'pending'] ?? 0) ? live : sent;
  const status = record.status ?? 'pending';
  const providerId = record.metadata.chat_msg_id;
  if (status === 'failed') {
    return (
      <p className="test-result bad" role="alert" data-status="failed">
        <StatusTicks status="failed" /> Failed: {record.error ?? 'the provider reported it was not delivered.'}
      </p>
    );
  }
  if (status === 'pending' && record.metadata.outcome === 'unknown') {
    return (
      <p className="test-result warn" role="status" data-status="unknown">
        May not have been sent — the provider&rsquo;s answer was lost. Check with the recipient before sending another.
      </p>
    );
  }
  const said: Record<string, string> = {
    pending: 'Sending…',
    sent: 'Sent: the provider accepted it. Waiting for its delivery receipt…',
    delivered: 'Delivered to the phone.',
    read: 'Delivered and read.',
  };
  return (
    <p className="test-result ok" role="status" data-status={status}>
      <StatusTicks status={status} /> {said[status]}
      {providerId && (
        <>
          {' '}
          Provider id <code>{providerId}</code>
        </>
      )}
    </p>
  );
}

/** The approved templates as last read from the provider; directors refresh them. */
function TemplatesCard({ role, mode }: { role: 'director' | 'staff'; mode: 'demo' | 'live' }) {
  const utils = trpc.useUtils();
  const catalogue = trpc.chat.providerTemplates.useQuery();
  const refresh = trpc.chat.refreshTemplates.useMutation({ onSuccess: (data) => setProviderTemplates(utils, data) });
  const templates = catalogue.data?.templates ?? [];
  const approved = templates.filter((t) => t.status === 'APPROVED').length;
  return (
    <section className="card" aria-labelledby="templates-title">
      <h2 id="templates-title">Approved templates</h2>
      <p className="muted">
        {catalogue.data
          ? `${approved} approved of ${templates.length} listed${
              mode === 'demo'
                ? ' (the built-in demo set: no provider in demo mode)'
                : catalogue.data.syncedAt
                  ? `, read from the provider ${catalogue.data.syncedAt.toLocaleString()}`
                  : ', not yet read from the provider'
            }.`
          : 'Loading…'}{' '}
        Outside the 24-hour window only these reach a client.
      </p>
      <ul className="template-list">
        {templates.map((t) => (
          <li key={`${t.name}|${t.language}`}>
            <strong>{t.name}</strong> <span className="muted">({t.language})</span>{' '}
            <span className={`badge ${t.status === 'APPROVED' ? '' : 'muted-badge'}`}>{t.status.toLowerCase()}</span>
          </li>
        ))}
      </ul>
      <button type="button" className="button ghost" disabled={role !== 'director' || refresh.isPending} onClick={() => refresh.mutate()}>
        {refresh.isPending ? 'Refreshing…' : 'Refresh templates'}
      </button>
      {role !== 'director' && <p className="muted">Only directors can refresh the templates.</p>}
      {refresh.error && (
        <p className="form-error" role="alert">
          {refresh.error.message}
        </p>
      )}
    </section>
  );
}
