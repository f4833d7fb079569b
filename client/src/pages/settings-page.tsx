import { useState, type FormEvent } from 'react';
import { StatusTicks } from '../components/status-ticks';
import { useToast } from '../components/toasts';
import { trpc } from '../lib/trpc';

const STATUS_TONE: Record<string, string> = {
  Live: 'ok',
  'Demo mode': 'info',
  Unauthorized: 'bad',
  'Not provisioned': 'warn',
  'Rate-limited': 'warn',
  Unreachable: 'bad',
  Error: 'bad',
};

export function SettingsPage({ role }: { role: 'director' | 'staff' }) {
  const settings = trpc.settings.chat.useQuery();
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

  if (settings.isPending) return <p className="muted" role="status">Loading settings…</p>;
  if (settings.isError) return <p className="form-error" role="alert">{settings.error.message}</p>;
  const s = settings.data;
  const isDirector = role === 'director';

  return (
    <div className="page settings">
      <div className="page-header">
        <div>
          <h1>Settings · Chat</h1>
          <p className="muted">The firm’s chat number, the provider webhook and a connection check.</p>
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
        </section>

        <TestMessageForm />

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
      </div>
    </div>
  );
}

function TestMessageForm() {
  const [to, setTo] = useState('');
  const [body, setBody] = useState('This is a test message from the firm.');
  const sendTest = trpc.settings.sendTest.useMutation();
  const fieldErrors = sendTest.error?.data?.fieldErrors;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    sendTest.mutate({ to, body });
  };
  return (
    <form className="card" onSubmit={submit} aria-labelledby="test-title">
      <h2 id="test-title">Send a test message</h2>
      <label className="field">
        <span>Number</span>
        <input required inputMode="tel" placeholder="+44 7700 900123" value={to} onChange={(e) => setTo(e.target.value)} aria-invalid={Boolean(fieldErrors?.to)} />
        {fieldErrors?.to && <small className="field-error">{fieldErrors.to.join(' ')}</small>}
      </label>
      <label className="field">
        <span>Text</span>
        <textarea required rows={2} value={body} onChange={(e) => setBody(e.target.value)} />
      </label>
      <button type="submit" className="button primary" disabled={sendTest.isPending}>
        {sendTest.isPending ? 'Sending…' : 'Send test'}
      </button>
      {sendTest.data && (
        <p className="test-result ok" role="status">
          <StatusTicks status={sendTest.data.status ?? 'sent'} /> Sent. Provider id <code>{sendTest.data.metadata.chat_msg_id}</code>
        </p>
      )}
      {sendTest.error && !fieldErrors && (
        <p className="form-error" role="alert">
          {sendTest.error.message}
        </p>
      )}
    </form>
  );
}
