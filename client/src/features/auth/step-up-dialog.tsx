import { useEffect, useRef, useState, type FormEvent } from 'react';
import { setStepUpHandler } from '../../lib/step-up-link';
import { trpc } from '../../lib/trpc';
import { passkeyProblem, usePasskeyAssertion } from './passkey-browser';

// "Confirm it's you" (server/auth/README.md "Step-up and the firm's policy"): one dialog for every
// call refused with `reauth`; calls refused while it is open wait on the same answer.

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
      stepUp.mutate({ passkey: passkey as unknown as Record<string, unknown> }, { onSuccess: () => finish(null) });
    } catch (error) {
      setProblem(passkeyProblem(error, 'sign-in'));
    }
  };

  return (
    <dialog
      ref={dialog}
      className="step-up-dialog"
      aria-labelledby="step-up-title"
      onClose={() => pending.current && finish(new Error(CANCELLED))}
    >
      <form onSubmit={submit} noValidate>
        <h2 id="step-up-title">Confirm it&apos;s you</h2>
        <p>This change needs a fresh proof of your second factor.</p>
        {stepUp.error && (
          <p className="form-error" role="alert">
            {stepUp.error.message}
          </p>
        )}
        <label>
          {useRecovery ? 'Recovery code' : 'Code from your authenticator app'}
          <input
            name={useRecovery ? 'recoveryCode' : 'code'}
            value={answer}
            onChange={(e) => setAnswer(e.target.value)}
            autoComplete="one-time-code"
            inputMode={useRecovery ? 'text' : 'numeric'}
            autoFocus
          />
        </label>
        {problem && <p role="alert">{problem}</p>}
        <div className="step-up-actions">
          <button type="submit" disabled={stepUp.isPending}>
            Confirm
          </button>
          <button type="button" onClick={() => finish(new Error(CANCELLED))}>
            Cancel
          </button>
        </div>
        <div className="step-up-other">
          <button type="button" className="link" onClick={() => (setUseRecovery(!useRecovery), setAnswer(''))}>
            {useRecovery ? 'Use a code from the app' : 'Use a recovery code'}
          </button>
          <button type="button" className="link" onClick={() => void withPasskey()}>
            Use a passkey
          </button>
        </div>
      </form>
    </dialog>
  );
}
