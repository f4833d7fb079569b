import { useState, type FormEvent } from 'react';
import { FormSummary, useFormErrors } from '../../ui/field-error';
import { PersonOption } from './person-option';
import { freshError, type TAccess, type TAccessChanges, type TPerson, type TSubject } from './use-access';

type TProps = { subject: TSubject; wall: TAccess; changes: TAccessChanges; readAt: number; people: TPerson[]; myId: number };

/**
 * Screens a person, with the reason the record keeps (the conflict, in a few words). Anyone not
 * screened yet may be chosen — a deactivated person too, so a later reactivation finds them walled.
 */
export function ScreenForm({ subject, wall, changes, readAt, people, myId }: TProps) {
  const [userId, setUserId] = useState('');
  const [reason, setReason] = useState('');
  const screen = changes.screen;
  const error = freshError(screen, readAt);
  const { formRef, ...errors } = useFormErrors(error, ['reason']);
  const candidates = people.filter((p) => !wall.screens.some((s) => s.id === p.id));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    screen.mutate(
      { ...subject, userId: Number(userId), reason },
      {
        onSuccess: () => {
          setUserId('');
          setReason('');
        },
      },
    );
  };
  if (candidates.length === 0 && !error) return null;
  // A refusal about the person (deactivated, unknown) is said whole in the summary, not cut to a field's word.
  const summary = error && !errors.field('reason')['aria-invalid'] ? error.message : errors.summary;
  return (
    <form className="access-form screen-form" onSubmit={submit} aria-label="Screen a person" noValidate ref={formRef}>
      <label className="compact-field">
        <span className="visually-hidden">Person to screen</span>
        <select value={userId} onChange={(e) => setUserId(e.target.value)} required>
          <option value="">Screen a person…</option>
          {candidates.map((p) => (
            <PersonOption key={p.id} person={p} me={p.id === myId} />
          ))}
        </select>
      </label>
      <div className="field">
        <label htmlFor={errors.inputId('reason')}>Reason</label>
        <input
          autoComplete="off"
          placeholder="e.g. acted for the other side in 2024"
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          maxLength={500}
          required
          {...errors.field('reason')}
        />
        {errors.message('reason')}
      </div>
      <button type="submit" className="button small" disabled={!userId || screen.isPending}>
        {screen.isPending ? 'Screening…' : userId === String(myId) ? 'Screen myself' : 'Screen'}
      </button>
      <FormSummary id={errors.summaryId} summary={summary} />
    </form>
  );
}
