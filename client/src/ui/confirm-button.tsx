import { useState } from 'react';

type TProps = {
  /** The first button, e.g. "Unlink this number". */
  label: string;
  ariaLabel?: string;
  /** The question asked in its place, and the button that does it. */
  question: string;
  confirmLabel: string;
  pending: boolean;
  onConfirm: () => void;
  className?: string;
};

/** A destructive action asked twice, in place: no dialog to lose, Keep to back out. */
export function ConfirmButton({ label, ariaLabel, question, confirmLabel, pending, onConfirm, className = 'button small' }: TProps) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" className={className} onClick={() => setAsking(true)} aria-label={ariaLabel}>
        {label}
      </button>
    );
  }
  return (
    <span className="confirm-inline">
      {question}
      <button type="button" className="button small danger" disabled={pending} onClick={onConfirm}>
        {confirmLabel}
      </button>
      <button type="button" className="button small ghost" onClick={() => setAsking(false)}>
        Keep
      </button>
    </span>
  );
}
