import { formatDateTime } from '../../lib/format';
import { FormSummary } from '../../ui/field-error';

type TSaveFooterProps = {
  pending: boolean;
  /** The button's words, e.g. "Save policy". */
  label: string;
  errors: { summaryId: string; summary: string | null };
  /** Who last saved the setting, and when (nothing shown before the first save). */
  saved: { updatedBy: { name: string } | null; updatedAt: Date | null };
};

/** A firm-wide setting's Save button, its form's error summary and who changed it last. */
export function SaveFooter({ pending, label, errors, saved }: TSaveFooterProps) {
  return (
    <>
      <div className="button-row">
        <button type="submit" className="button primary" disabled={pending}>
          {pending ? 'Saving…' : label}
        </button>
      </div>
      <FormSummary id={errors.summaryId} summary={errors.summary} />
      {saved.updatedBy && saved.updatedAt && (
        <p className="muted small">
          Last changed by {saved.updatedBy.name} on {formatDateTime(saved.updatedAt)}.
        </p>
      )}
    </>
  );
}
