import { useEffect, useId, useRef } from 'react';

/** What a form needs of a failed mutation: its message and, for a refused input, each field's messages. */
type TFormError = { message: string; data?: { fieldErrors?: Record<string, string[] | undefined> | null } | null } | null | undefined;

/**
 * The server's answer to a form, split for people: each field's messages beside that field, and
 * the rest (a wrong password, a field this form does not show) in the form's summary. The server
 * is the authority on what is valid; the form only shows what it said, every field at once.
 */
export function splitFormErrors<TField extends string>(
  error: TFormError,
  fields: readonly TField[],
): { byField: Partial<Record<TField, string[]>>; summary: string | null } {
  if (!error) return { byField: {}, summary: null };
  const fieldErrors = error.data?.fieldErrors ?? {};
  const byField: Partial<Record<TField, string[]>> = {};
  const elsewhere: string[] = [];
  for (const [field, messages] of Object.entries(fieldErrors)) {
    if (!messages?.length) continue;
    if ((fields as readonly string[]).includes(field)) byField[field as TField] = messages;
    else elsewhere.push(...messages);
  }
  const summary = elsewhere.length ? elsewhere.join(' ') : Object.keys(byField).length ? null : error.message;
  return { byField, summary };
}

/**
 * A form's error display: `field(name)` spreads id, aria-invalid and aria-describedby onto an input
 * (its label takes `htmlFor={inputId(name)}` and holds only the field's name: a message inside the
 * label would become part of the field's name), `message(name)` is the text aria-describedby points
 * to, and `summary` is for everything that is not one field's.
 * After a refused submit, focus moves to the first field in error, so its message is read out, or
 * to the summary when no field is in error.
 * `warning`: the field messages are warnings a person may override (aria-invalid stays off).
 * Take `formRef` out when destructuring (`const { formRef, ...errors }`): React's rules treat an
 * object holding a ref as a ref, which must not be read while rendering.
 */
export function useFormErrors<TField extends string>(error: TFormError, fields: readonly TField[], options: { warning?: boolean } = {}) {
  const baseId = useId();
  const formRef = useRef<HTMLFormElement>(null);
  const { byField, summary } = splitFormErrors(error, fields);
  const idOf = (field: TField) => `${baseId}-${field}-error`;
  const inputId = (field: TField) => `${baseId}-${field}`;

  const summaryId = `${baseId}-summary`;
  useEffect(() => {
    if (!error) return;
    // No field in error (a wrong password): the summary, so focus is not left on a disabled button.
    const first =
      formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"], [data-field-warning="true"]') ??
      document.getElementById(summaryId);
    first?.focus();
  }, [error, summaryId]);

  return {
    formRef,
    summary,
    summaryId,
    inputId,
    field: (name: TField) => {
      const messages = byField[name];
      return {
        id: inputId(name),
        'aria-invalid': messages && !options.warning ? true : undefined,
        'aria-describedby': messages ? idOf(name) : undefined,
        'data-field-warning': messages && options.warning ? true : undefined,
      };
    },
    message: (name: TField) => <FieldMessage id={idOf(name)} messages={byField[name]} warning={options.warning} />,
  };
}

/** One field's messages, under it; the input names this id in aria-describedby. */
export function FieldMessage({ id, messages, warning }: { id: string; messages: string[] | undefined; warning?: boolean }) {
  if (!messages?.length) return null;
  return (
    <small id={id} className={warning ? 'field-warning' : 'field-error'}>
      {messages.join(' ')}
    </small>
  );
}

/** The form's summary: what went wrong that is no single field's. */
export function FormSummary({ id, summary }: { id: string; summary: string | null }) {
  if (!summary) return null;
  return (
    <p id={id} className="form-error" role="alert" tabIndex={-1}>
      {summary}
    </p>
  );
}
