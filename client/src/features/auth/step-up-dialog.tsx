import { useEffect, useRef, useState, type FormEvent } from 'react';
import { FormSummary, useFormErrors } from '../../ui/field-error';
import { setMustEnrolHandler, setStepUpHandler } from '../../lib/step-up-link';
import { trpc } from '../../lib/trpc';
import { passkeyProblem, usePasskeyAssertion } from './passkey-browser';

// "Confirm it's you" (server/auth/README.md "Step-up and the firm's policy"): one dialog for every
// call refused with `reauth`; calls refused while it is open wait on the same answer. A modal
// <dialog>: the page behind is inert, focus starts in it, Escape cancels.

type TPending = { promise: Promise<void>; resolve: () => void; reject: (error: Error) => void };

const CANCELLED = 'Not done: you did not confirm it was you.';

export function StepUpDialog() {
  const dialog = useRef<HTMLDialogElement>(null);
  const pending = useRef<TPending | null>(null);
  const [open, setOpen] = useState(false);
  const [useRecovery, setUseRecovery] = useState(false);
  const [answer, setAnswer] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const getAssertion = usePasskeyAssertion();
  const stepUp = trpc.auth.stepUp.useMutation();
  // Only the ways this person has: an app's code, a passkey, or (with the app) a recovery code.
  const factors = trpc.auth.mfa.status.useQuery(undefined, { enabled: open });
  const hasTotp = factors.data?.totp ?? true;
  const hasPasskey = (factors.data?.passkeys ?? 0) > 0;
  const { formRef, ...errors } = useFormErrors(stepUp.error, ['code', 'recoveryCode']);
  const utils = trpc.useUtils();

  // Held at enrolment mid-use (server/auth/README.md "Step-up and the firm's policy"): auth.me says so, and the app shows the set-up page.
  useEffect(() => {
    setMustEnrolHandler(() => void utils.auth.me.invalidate());
    return () => setMustEnrolHandler(null);
  }, [utils]);

  useEffect(() => {
    setStepUpHandler(() => {
      if (!pending.current) {
        let resolve!: () => void;
        let reject!: (error: Error) => void;
        const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
        pending.current = { promise, resolve, reject };
        setOpen(true);
      }
      return pending.current.promise;
    });
    return () => setStepUpHandler(null);
  }, []);

  useEffect(() => {
    if (open && !dialog.current?.open) dialog.current?.showModal();
    if (!open && dialog.current?.open) dialog.current.close();
  }, [open]);

  const finish = (error: Error | null) => {
    const done = pending.current;
    pending.current = null;
    setOpen(false);
    setAnswer('');
    setProblem(null);
    setUseRecovery(false);
    stepUp.reset();
    if (error) done?.reject(error);
    else done?.resolve();
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    stepUp.mutate(useRecovery ? { recoveryCode: answer } : { code: answer }, { onSuccess: () => finish(null) });
  };
  const withPasskey = async () => {
    setProblem(null);
    try {
      const passkey = await getAssertion();
      stepUp.mutate({ passkey: { ...passkey } }, { onSuccess: () => finish(null) });
    } catch (error) {
      setProblem(passkeyProblem(error, 'sign-in'));
    }
  };
  const field = useRecovery ? 'recoveryCode' : 'code';
  const asksText = useRecovery || hasTotp;

  return (
    <dialog
      ref={dialog}
      className="step-up-dialog"
      aria-labelledby="step-up-title"
      aria-describedby="step-up-why"
      onClose={() => pending.current && finish(new Error(CANCELLED))}
    >
      <form onSubmit={submit} noValidate ref={formRef}>
        <h2 id="step-up-title">Confirm it&apos;s you</h2>
        <p id="step-up-why" className="muted">
          This change needs a fresh proof of your second factor. It is asked again after 10 minutes.
        </p>
        {asksText && (
          <div className="field">
            <label htmlFor={errors.inputId(field)}>{useRecovery ? 'Recovery code' : 'Code from your authenticator app'}</label>
            <input
              name={field}
              value={answer}
              onChange={(e) => setAnswer(e.target.value)}
              autoComplete={useRecovery ? 'off' : 'one-time-code'}
              autoCapitalize="none"
              spellCheck={false}
              inputMode={useRecovery ? 'text' : 'numeric'}
              maxLength={useRecovery ? 40 : 7}
              {...errors.field(field)}
            />
            {errors.message(field)}
            {useRecovery && <p className="field-hint">Each recovery code works once.</p>}
          </div>
        )}
        <FormSummary id={errors.summaryId} summary={errors.summary} />
        {problem && (
          <p className="form-error" role="alert">
            {problem}
          </p>
        )}
        <div className="step-up-actions">
          {asksText && (
            <button type="submit" className="button primary" disabled={stepUp.isPending}>
              {stepUp.isPending ? 'Checking…' : 'Confirm'}
            </button>
          )}
          {hasPasskey && !useRecovery && (
            <button type="button" className="button" onClick={() => void withPasskey()} disabled={stepUp.isPending}>
              Use your passkey
            </button>
          )}
          <button type="button" className="button ghost" onClick={() => finish(new Error(CANCELLED))}>
            Cancel
          </button>
        </div>
        {hasTotp && (
          <p className="step-up-other">
            <button type="button" className="link-button" onClick={() => (setUseRecovery(!useRecovery), setAnswer(''), stepUp.reset())}>
              {useRecovery ? 'Use a code from your authenticator app instead' : 'Use a recovery code instead'}
            </button>
          </p>
        )}
      </form>
    </dialog>
  );
}
