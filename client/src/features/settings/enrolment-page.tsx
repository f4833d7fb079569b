import { trpc } from '../../lib/trpc';
import { PasskeysPanel } from './passkeys-panel';
import { SecurityPanel } from './security-panel';

// Enrol first (server/auth/README.md "Step-up and the firm's policy"): all a person the firm's
// policy covers sees until they set up a second factor. "Continue" waits for them, so the recovery
// codes shown once after setting up the app stay on screen until they have kept them.
export function EnrolmentPage() {
  const utils = trpc.useUtils();
  const status = trpc.auth.mfa.status.useQuery();
  const signOut = trpc.auth.signOut.useMutation({ onSettled: () => utils.auth.me.setData(undefined, null) });
  const enrolled = Boolean(status.data && (status.data.totp || status.data.passkeys > 0));
  return (
    <main className="enrolment-page" aria-labelledby="enrolment-title">
      <header className="enrolment-header">
        <div className="brand large">
          <span className="brand-mark" aria-hidden="true" />
          Firm Chat
        </div>
        <h1 id="enrolment-title">Set up two-step sign-in</h1>
        <p className="muted">Your firm requires two-step sign-in: set up an authenticator app or a passkey before you carry on.</p>
      </header>
      <div className="enrolment-panels">
        <SecurityPanel />
        <PasskeysPanel />
      </div>
      <div className="enrolment-actions">
        {enrolled && (
          <button type="button" className="button primary" onClick={() => void utils.auth.me.invalidate()}>
            Continue to Firm Chat
          </button>
        )}
        <button type="button" className="button ghost" onClick={() => signOut.mutate()}>
          Sign out
        </button>
      </div>
    </main>
  );
}
