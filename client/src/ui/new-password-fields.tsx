import { useId, type ReactNode } from 'react';

export const PASSWORD_MISMATCH = 'The two passwords are not the same: type it again.';

/**
 * A new password typed twice (an invitation, a password change): the first field carries the server's
 * answer (`field`, `message` from useFormErrors), the second says so when the two differ (`mismatch`,
 * set by the form when it is sent).
 */
export function NewPasswordFields({
  value,
  again,
  onChange,
  onAgain,
  mismatch,
  field,
  message,
}: {
  value: string;
  again: string;
  onChange: (value: string) => void;
  onAgain: (value: string) => void;
  mismatch: boolean;
  field: { id: string; 'aria-invalid'?: boolean; 'aria-describedby'?: string };
  message: ReactNode;
}) {
  const againId = useId();
  return (
    <>
      <div className="field">
        <label htmlFor={field.id}>New password</label>
        <input type="password" autoComplete="new-password" required value={value} onChange={(e) => onChange(e.target.value)} {...field} />
        {message}
      </div>
      <div className="field">
        <label htmlFor={againId}>New password again</label>
        <input
          id={againId}
          type="password"
          autoComplete="new-password"
          required
          value={again}
          onChange={(e) => onAgain(e.target.value)}
          aria-invalid={mismatch}
          aria-describedby={mismatch ? `${againId}-mismatch` : undefined}
        />
        {mismatch && (
          <small className="field-error" id={`${againId}-mismatch`} role="alert">
            {PASSWORD_MISMATCH}
          </small>
        )}
      </div>
    </>
  );
}
