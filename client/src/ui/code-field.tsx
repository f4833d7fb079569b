import type { ReactNode } from 'react';

/** A 6-digit code from an authenticator app (its label says where to find it), with the server's answer under it. */
export function CodeField({
  label,
  value,
  onChange,
  field,
  message,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  field: { id: string; 'aria-invalid'?: boolean; 'aria-describedby'?: string };
  message: ReactNode;
}) {
  return (
    <div className="field">
      <label htmlFor={field.id}>{label}</label>
      <input
        name="code"
        inputMode="numeric"
        autoComplete="one-time-code"
        maxLength={7}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        {...field}
      />
      {message}
    </div>
  );
}
