import { useState, type FormEvent } from 'react';
import { useLocation } from 'wouter';
import { setSignedInUser } from '../../lib/cache-patches';
import { formatDateTime } from '../../lib/format';
import { trpc } from '../../lib/trpc';
import { FormSummary, useFormErrors } from '../../ui/field-error';
import { NewPasswordFields } from '../../ui/new-password-fields';

/**
 * Where an invitation link lands (`/invite/<token>`): the person sets their own password, twice, and
 * is signed in. The link works once; a used, expired or replaced one says so.
 */
export function InvitePage({ token }: { token: string }) {
  const [, navigate] = useLocation();
  const utils = trpc.useUtils();
  const info = trpc.auth.inviteInfo.useQuery({ token }, { retry: false, staleTime: Infinity });
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const accept = trpc.auth.acceptInvite.useMutation({
    onSuccess: ({ user }) => {
      setSignedInUser(utils, user);
      navigate('/', { replace: true });
    },
  });
  const { formRef, ...errors } = useFormErrors(accept.error, ['password']);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setMismatch(password !== again);
    if (password === again) accept.mutate({ token, password });
  };
  return (
    <div className="sign-in">
      <form className="card sign-in-card" onSubmit={submit} aria-labelledby="invite-title" noValidate ref={formRef}>
        <div className="brand large">
          <span className="brand-mark" aria-hidden="true" />
          Firm Chat
        </div>
        <h1 id="invite-title">Set your password</h1>
        {info.isPending && <p className="muted">Reading your invitation…</p>}
        {info.isError && (
          <>
            <p className="form-error" role="alert">
              {info.error.message}
            </p>
            <a href="/">Go to the sign-in page</a>
          </>
        )}
        {info.data && (
          <>
            <p>
              Welcome, {info.data.name}. You sign in as <strong>{info.data.email}</strong>. Choose a password only you know: 10 characters
              at least. This link works once, until {formatDateTime(info.data.expiresAt)}.
            </p>
            <input type="email" name="email" autoComplete="username" value={info.data.email} readOnly hidden />
            <NewPasswordFields
              value={password}
              again={again}
              onChange={setPassword}
              onAgain={setAgain}
              mismatch={mismatch}
              field={errors.field('password')}
              message={errors.message('password')}
            />
            <FormSummary id={errors.summaryId} summary={errors.summary} />
            <button type="submit" className="button primary" disabled={accept.isPending}>
              {accept.isPending ? 'Signing you in…' : 'Set password and sign in'}
            </button>
          </>
        )}
      </form>
    </div>
  );
}
