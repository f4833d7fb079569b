import { useState, type FormEvent } from 'react';
import type { TSecondFactorMethod } from '../../../../shared/session-methods';
import { CodeField } from '../../ui/code-field';
import { FormSummary, useFormErrors } from '../../ui/field-error';
import { setSignedInUser } from '../../lib/cache-patches';
import { trpc } from '../../lib/trpc';
import { passkeyProblem, usePasskeyAssertion } from './passkey-browser';

/** What a first step (a password, or single sign-on) handed over: a ticket and the person's second steps. */
export type TSecondStep = { ticket: string; methods: TSecondFactorMethod[] };

/**
 * The ticket a single sign-on callback sends the browser here with, in the URL fragment
 * (`#mfa=<ticket>&methods=totp,passkey`); the fragment is cleared so a reload or a shared link does not carry it.
 */
export function takeSecondStepFromUrl(): TSecondStep | null {
  const params = new URLSearchParams(window.location.hash.replace(/^#/, ''));
  const ticket = params.get('mfa');
  if (!ticket) return null;
  window.history.replaceState(null, '', window.location.pathname + window.location.search);
  const known = new Set<string>(['totp', 'passkey', 'recovery_code']);
  const methods = (params.get('methods') ?? '').split(',').filter((m): m is TSecondFactorMethod => known.has(m));
  return { ticket, methods: methods.length ? methods : ['totp', 'recovery_code'] };
}

/** The second step of signing in: a code from the authenticator app, a recovery code, or a passkey. */
export function SecondStepForm({ step, onRestart }: { step: TSecondStep; onRestart: () => void }) {
  const utils = trpc.useUtils();
  const hasTotp = step.methods.includes('totp');
  const [useRecovery, setUseRecovery] = useState(!hasTotp && !step.methods.includes('passkey'));
  const [code, setCode] = useState('');
  const [recoveryCode, setRecoveryCode] = useState('');
  const [passkeyError, setPasskeyError] = useState<string | null>(null);
  const complete = trpc.auth.completeSignIn.useMutation({ onSuccess: ({ user }) => setSignedInUser(utils, user) });
  const getAssertion = usePasskeyAssertion();
  const { formRef, ...errors } = useFormErrors(complete.error, ['code', 'recoveryCode']);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    complete.mutate(useRecovery ? { ticket: step.ticket, recoveryCode } : { ticket: step.ticket, code });
  };
  const withPasskey = async () => {
    setPasskeyError(null);
    try {
      complete.mutate({ ticket: step.ticket, passkey: { ...(await getAssertion()) } });
    } catch (error) {
      setPasskeyError(passkeyProblem(error, 'sign-in'));
    }
  };
  const expired = complete.error?.message.startsWith('This sign-in has expired') ?? false;
  return (
    <form className="card sign-in-card" onSubmit={submit} aria-labelledby="second-step-title" noValidate ref={formRef}>
      <div className="brand large">
        <span className="brand-mark" aria-hidden="true" />
        Firm Chat
      </div>
      <h1 id="second-step-title">Two-step sign-in</h1>
      {useRecovery ? (
        <div className="field">
          <label htmlFor={errors.inputId('recoveryCode')}>Recovery code</label>
          <input
            name="recoveryCode"
            autoComplete="off"
            autoCapitalize="none"
            spellCheck={false}
            value={recoveryCode}
            onChange={(e) => setRecoveryCode(e.target.value)}
            {...errors.field('recoveryCode')}
          />
          {errors.message('recoveryCode')}
          <p className="field-hint">Each recovery code works once.</p>
        </div>
      ) : hasTotp ? (
        <CodeField
          label="Enter the 6-digit code from your authenticator app"
          value={code}
          onChange={setCode}
          field={errors.field('code')}
          message={errors.message('code')}
        />
      ) : null}
      <FormSummary id={errors.summaryId} summary={errors.summary} />
      {(useRecovery || hasTotp) && (
        <button type="submit" className="button primary" disabled={complete.isPending}>
          {complete.isPending ? 'Checking…' : 'Continue'}
        </button>
      )}
      {step.methods.includes('passkey') && !useRecovery && (
        <button type="button" className="button" onClick={() => void withPasskey()} disabled={complete.isPending}>
          Use your passkey
        </button>
      )}
      {passkeyError && (
        <p className="form-error" role="alert">
          {passkeyError}
        </p>
      )}
      <p className="second-step-links">
        {step.methods.includes('recovery_code') && !useRecovery && (
          <button type="button" className="link-button" onClick={() => setUseRecovery(true)}>
            Use a recovery code instead
          </button>
        )}
        {useRecovery && (hasTotp || step.methods.includes('passkey')) && (
          <button type="button" className="link-button" onClick={() => setUseRecovery(false)}>
            {hasTotp ? 'Use a code from your authenticator app instead' : 'Use your passkey instead'}
          </button>
        )}{' '}
        {expired && (
          <button type="button" className="link-button" onClick={onRestart}>
            Start again
          </button>
        )}
      </p>
    </form>
  );
}
