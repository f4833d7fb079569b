import { useState, type FormEvent } from 'react';
import { trpc } from '../../lib/trpc';
import { FormSummary, useFormErrors } from '../../ui/field-error';
import { NewPasswordFields } from '../../ui/new-password-fields';
import { useToast } from '../../ui/toasts';

const FIELDS = ['currentPassword', 'newPassword'] as const;

/** Your password: the current one, then a new one twice; every other session of yours ends (server/auth/README.md "Sessions and the firm's policy"). */
export function PasswordPanel() {
  const toast = useToast();
  const utils = trpc.useUtils();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [again, setAgain] = useState('');
  const [tried, setTried] = useState(false);
  const change = trpc.auth.changePassword.useMutation({
    onSuccess: async ({ sessionsEnded }) => {
      setCurrent('');
      setNext('');
      setAgain('');
      setTried(false);
      toast(
        'success',
        sessionsEnded
          ? `Password changed. ${sessionsEnded} other session${sessionsEnded === 1 ? ' was' : 's were'} signed out.`
          : 'Password changed.',
      );
      await utils.auth.sessions.invalidate();
    },
  });
  const { formRef, ...errors } = useFormErrors(change.error, FIELDS);
  const mismatch = tried && next !== again;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTried(true);
    if (next !== again) return;
    change.mutate({ currentPassword: current, newPassword: next });
  };
  return (
    <section className="card" aria-labelledby="password-title">
      <h2 id="password-title">Password</h2>
      <p className="muted">Changing it signs you out everywhere else.</p>
      <form onSubmit={submit} noValidate ref={formRef} aria-label="Change password">
        <input type="text" name="username" autoComplete="username" hidden readOnly />
        <div className="field">
          <label htmlFor={errors.inputId('currentPassword')}>Current password</label>
          <input
            type="password"
            autoComplete="current-password"
            value={current}
            onChange={(e) => setCurrent(e.target.value)}
            {...errors.field('currentPassword')}
          />
          {errors.message('currentPassword')}
        </div>
        <NewPasswordFields
          value={next}
          again={again}
          onChange={setNext}
          onAgain={setAgain}
          mismatch={mismatch}
          field={errors.field('newPassword')}
          message={errors.message('newPassword')}
        />
        <div className="button-row">
          <button type="submit" className="button primary" disabled={change.isPending}>
            {change.isPending ? 'Changing…' : 'Change password'}
          </button>
        </div>
        <FormSummary id={errors.summaryId} summary={errors.summary} />
      </form>
    </section>
  );
}
