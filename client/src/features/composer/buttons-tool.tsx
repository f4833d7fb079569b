import { useEffect, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { ButtonsForm } from './buttons-form';

/**
 * "Buttons…" in the composer's tools: a question with up to three quick-reply buttons for the
 * client to press (server/messaging/README.md "Quick-reply buttons"), written in a small dialog. The dialog is put at
 * the end of the page, outside the composer's own form.
 */
export function ButtonsTool({
  clientId,
  to,
  caseId,
  onSent,
}: {
  clientId: number;
  to: string | null;
  caseId: number | undefined;
  onSent: () => void;
}) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className="button small ghost buttons-tool" aria-haspopup="dialog" onClick={() => setOpen(true)}>
        Buttons…
      </button>
      {open &&
        createPortal(
          <ButtonsDialog clientId={clientId} to={to} caseId={caseId} onSent={onSent} onClose={() => setOpen(false)} />,
          document.body,
        )}
    </>
  );
}

/** A modal dialog: focus stays in it, Escape closes it, and focus goes back to "Buttons…" after. */
function ButtonsDialog({
  clientId,
  to,
  caseId,
  onSent,
  onClose,
}: {
  clientId: number;
  to: string | null;
  caseId: number | undefined;
  onSent: () => void;
  onClose: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    dialog.current?.showModal();
    return () => opener?.focus();
  }, []);
  return (
    <dialog ref={dialog} className="buttons-dialog" aria-labelledby="buttons-dialog-title" onClose={onClose}>
      <h2 id="buttons-dialog-title">Ask with buttons</h2>
      <p className="muted small">The client sees your question with a button for each answer and replies with one press.</p>
      <ButtonsForm clientId={clientId} to={to} caseId={caseId} onSent={onSent} onDone={() => dialog.current?.close()} />
    </dialog>
  );
}
