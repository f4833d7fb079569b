import { useQuery } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { DEMO_ACCOUNTS } from '../../../../shared/demo';
import { FormSummary, useFormErrors } from '../../ui/field-error';
import { setSignedInUser } from '../../lib/cache-patches';
import { trpc } from '../../lib/trpc';
import { forgetUnsentWork } from '../composer';
import { PasskeySignInButton } from './passkey-sign-in-button';
import { SingleSignOn } from './single-sign-on';
import { SecondStepForm, takeSecondStepFromUrl, type TSecondStep } from './second-step-form';
import { takeSessionEnded } from './session-end';

async function fetchMode(): Promise<'demo' | 'live' | null> {
  const res = await fetch('/api/health');
  const body = (await res.json()) as { mode?: 'demo' | 'live' };
  return body.mode ?? null;
}

export function SignInPage() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  // Sent here by the server (signed out elsewhere, expired, deactivated): said, not left to guess.
  const [ended] = useState(takeSessionEnded);
  // Nobody is signed in: whatever session wrote the drafts and queued messages kept here has ended
  // (it may have expired while the browser was closed), and they are not kept for the next person.
  useEffect(() => void forgetUnsentWork(), []);
  const utils = trpc.useUtils();
  const mode = useQuery({ queryKey: ['health-mode'], queryFn: fetchMode, staleTime: Infinity });
  // A second step: asked for by the password's answer, or handed over by single sign-on in the URL.
  const [second, setSecond] = useState<TSecondStep | null>(takeSecondStepFromUrl);
  const signIn = trpc.auth.signIn.useMutation({
    onSuccess: (answer) => {
      if ('user' in answer) setSignedInUser(utils, answer.user);
      else setSecond({ ticket: answer.ticket, methods: answer.methods });
    },
  });
  const { formRef, ...errors } = useFormErrors(signIn.error, ['email', 'password']);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    signIn.mutate({ email, password });
  };
  if (second) {
    const restart = () => {
      setSecond(null);
      setPassword('');
      signIn.reset();
    };
    return (
      <div className="sign-in">
        <SecondStepForm step={second} onRestart={restart} />
      </div>
    );
  }
  return (
    <div className="sign-in">
      {/* noValidate: the server decides what it accepts and answers for both fields at once. */}
      <form className="card sign-in-card" onSubmit={submit} aria-labelledby="sign-in-title" noValidate ref={formRef}>
        <div className="brand large">
          <span className="brand-mark" aria-hidden="true" />
          Firm Chat
        </div>
        <h1 id="sign-in-title">Sign in</h1>
        {ended && (
          <p className="notice" role="status">
            Your session has ended — you were signed out elsewhere, it expired, or a director changed your account. Sign in again to
            continue.
          </p>
        )}
        <div className="field">
          <label htmlFor={errors.inputId('email')}>Email</label>
          <input
            type="email"
            name="email"
            autoComplete="username"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            {...errors.field('email')}
          />
          {errors.message('email')}
        </div>
        <div className="field">
          <label htmlFor={errors.inputId('password')}>Password</label>
          <input
            type="password"
            name="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            {...errors.field('password')}
          />
          {errors.message('password')}
        </div>
        <FormSummary id={errors.summaryId} summary={errors.summary} />
        <button type="submit" className="button primary" disabled={signIn.isPending}>
          {signIn.isPending ? 'Signing in…' : 'Sign in'}
        </button>
        <PasskeySignInButton />
        <SingleSignOn />
        {mode.data === 'demo' && (
          <section className="demo-accounts" aria-label="Demo accounts">
            <h2>Demo mode</h2>
            <p>Messages are recorded locally and nothing is sent. Try one of the demo accounts:</p>
            <ul>
              {DEMO_ACCOUNTS.map((account) => (
                <li key={account.email}>
                  <button
                    type="button"
                    className="link-button"
                    onClick={() => {
                      setEmail(account.email);
                      setPassword(account.password);
                    }}
                  >
                    {account.role === 'director' ? 'Director' : 'Staff'}
                  </button>{' '}
                  <code>{account.email}</code> / <code>{account.password}</code>
                </li>
              ))}
            </ul>
          </section>
        )}
      </form>
    </div>
  );
}
