import QRCode from 'qrcode';
import { useEffect, useState, type FormEvent } from 'react';
import { trpc } from '../../lib/trpc';
import { CodeField } from '../../ui/code-field';
import { ConfirmButton } from '../../ui/confirm-button';
import { FormSummary, useFormErrors } from '../../ui/field-error';
import { QueryStatus } from '../../ui/query-status';
import { useToast } from '../../ui/toasts';

/** Two-step sign-in: an authenticator app's code after the password, with recovery codes for a lost phone. */
export function SecurityPanel() {
  const status = trpc.auth.mfa.status.useQuery();
  // Shown once, right after they are made: the server keeps only their hashes.
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);
  return (
    <section className="card security" aria-labelledby="security-title">
      <h2 id="security-title">Two-step sign-in</h2>
      <p className="muted">
        After your password, Firm Chat asks for a code from an authenticator app on your phone, so a password alone is not enough.
      </p>
      {recoveryCodes ? (
        <RecoveryCodes codes={recoveryCodes} onDone={() => setRecoveryCodes(null)} />
      ) : (
        <QueryStatus query={status} loading="Loading…" padded={false}>
          {(s) =>
            s.totp ? (
              <TotpOn recoveryCodesLeft={s.recoveryCodesLeft} onCodes={setRecoveryCodes} />
            ) : (
              <TotpSetup onCodes={setRecoveryCodes} />
            )
          }
        </QueryStatus>
      )}
    </section>
  );
}

function TotpSetup({ onCodes }: { onCodes: (codes: string[]) => void }) {
  const utils = trpc.useUtils();
  const start = trpc.auth.mfa.startTotp.useMutation();
  const confirm = trpc.auth.mfa.confirmTotp.useMutation({
    onSuccess: async ({ recoveryCodes }) => {
      onCodes(recoveryCodes);
      await Promise.all([utils.auth.mfa.status.invalidate(), utils.auth.sessions.invalidate()]);
    },
  });
  const [code, setCode] = useState('');
  const [qr, setQr] = useState<string | null>(null);
  const { formRef, ...errors } = useFormErrors(confirm.error, ['code']);
  const url = start.data?.otpauthUrl;
  useEffect(() => {
    if (!url) return;
    let current = true;
    void QRCode.toDataURL(url, { margin: 1, width: 200 }).then((data) => current && setQr(data));
    return () => {
      current = false;
    };
  }, [url]);
  if (!start.data) {
    return (
      <div>
        <button type="button" className="button primary" onClick={() => start.mutate()} disabled={start.isPending}>
          Set up an authenticator app
        </button>
        {start.error && (
          <p className="form-error" role="alert">
            {start.error.message}
          </p>
        )}
      </div>
    );
  }
  const submit = (event: FormEvent) => {
    event.preventDefault();
    confirm.mutate({ code });
  };
  return (
    <form className="totp-setup" onSubmit={submit} noValidate ref={formRef} aria-label="Set up an authenticator app">
      <p>Scan this QR code with your authenticator app (such as Google Authenticator, Microsoft Authenticator or 1Password).</p>
      {qr && <img className="totp-qr" src={qr} width={200} height={200} alt="QR code for your authenticator app" />}
      <p className="muted small">
        Cannot scan it? Type this key into the app instead:{' '}
        <code className="totp-secret" data-testid="totp-secret">
          {start.data.secret}
        </code>
      </p>
      <CodeField
        label="Enter the 6-digit code the app shows"
        value={code}
        onChange={setCode}
        field={errors.field('code')}
        message={errors.message('code')}
      />
      <FormSummary id={errors.summaryId} summary={errors.summary} />
      <button type="submit" className="button primary" disabled={confirm.isPending}>
        {confirm.isPending ? 'Checking…' : 'Turn on two-step sign-in'}
      </button>
    </form>
  );
}

function TotpOn({ recoveryCodesLeft, onCodes }: { recoveryCodesLeft: number; onCodes: (codes: string[]) => void }) {
  const utils = trpc.useUtils();
  const toast = useToast();
  const remove = trpc.auth.mfa.remove.useMutation({
    onSuccess: async ({ sessionsEnded }) => {
      const ended = sessionsEnded ? ` Your other sessions were signed out (${sessionsEnded}).` : '';
      toast('success', `Two-step sign-in is off.${ended}`);
      await Promise.all([utils.auth.mfa.status.invalidate(), utils.auth.sessions.invalidate()]);
    },
  });
  const regenerate = trpc.auth.mfa.regenerateRecoveryCodes.useMutation({
    onSuccess: async ({ recoveryCodes }) => {
      onCodes(recoveryCodes);
      await utils.auth.mfa.status.invalidate();
    },
  });
  const error = remove.error ?? regenerate.error;
  return (
    <div className="totp-on">
      <p>
        <span className="person-status active">On</span> An authenticator app is set up. {recoveryCodesLeft} recovery{' '}
        {recoveryCodesLeft === 1 ? 'code is' : 'codes are'} left.
      </p>
      <div className="button-row">
        <ConfirmButton
          label="New recovery codes"
          question="Make new recovery codes? The old ones stop working."
          confirmLabel="Make new codes"
          pending={regenerate.isPending}
          onConfirm={() => regenerate.mutate()}
        />
        <ConfirmButton
          label="Remove authenticator app"
          question="Turn off two-step sign-in? Your other sessions are signed out."
          confirmLabel="Remove"
          pending={remove.isPending}
          onConfirm={() => remove.mutate({ method: 'totp' })}
        />
      </div>
      {error && (
        <p className="form-error" role="alert">
          {error.message}
        </p>
      )}
    </div>
  );
}

function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const toast = useToast();
  const copy = () =>
    navigator.clipboard.writeText(codes.join('\n')).then(
      () => toast('success', 'Recovery codes copied.'),
      () => toast('error', 'They could not be copied: select them and copy them by hand.'),
    );
  return (
    <div className="recovery-codes">
      <p>
        <strong>Save these recovery codes somewhere safe.</strong> Each one signs you in once if you lose your phone. They are shown only
        now.
      </p>
      <ul className="recovery-code-list" aria-label="Recovery codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      <div className="button-row">
        <button type="button" className="button" onClick={() => void copy()}>
          Copy codes
        </button>
        <button type="button" className="button primary" onClick={onDone}>
          I have saved them
        </button>
      </div>
    </div>
  );
}
