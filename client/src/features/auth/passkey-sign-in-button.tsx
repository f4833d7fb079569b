import { useState } from 'react';
import { setSignedInUser } from '../../lib/cache-patches';
import { trpc } from '../../lib/trpc';
import { passkeyProblem, usePasskeyAssertion } from './passkey-browser';

/** "Sign in with a passkey": no email typed; the device offers the person's passkeys for this site. */
export function PasskeySignInButton() {
  const utils = trpc.useUtils();
  const getAssertion = usePasskeyAssertion();
  const [problem, setProblem] = useState<string | null>(null);
  const [asking, setAsking] = useState(false);
  const signIn = trpc.auth.passkeys.signIn.useMutation({ onSuccess: ({ user }) => setSignedInUser(utils, user) });
  const start = async () => {
    setProblem(null);
    setAsking(true);
    try {
      const response = await getAssertion();
      await signIn.mutateAsync({ response });
    } catch (error) {
      // The server's refusal is already a sentence; the browser's is put into one.
      setProblem(passkeyProblem(error, 'sign-in'));
    } finally {
      setAsking(false);
    }
  };
  return (
    <div className="passkey-sign-in">
      <button type="button" className="button" onClick={() => void start()} disabled={asking}>
        {asking ? 'Waiting for your passkey…' : 'Sign in with a passkey'}
      </button>
      {problem && (
        <p className="form-error" role="alert">
          {problem}
        </p>
      )}
    </div>
  );
}
