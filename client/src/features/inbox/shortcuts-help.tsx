import { useEffect, useRef } from 'react';

export const SHORTCUT_LIST: [string, string][] = [
  ['j', 'Next conversation'],
  ['k', 'Previous conversation'],
  ['c', 'Write in the message box'],
  ['a', 'Assign an unassigned conversation to yourself'],
  ['e', 'Mark the open conversation done (again: reopen)'],
  ['/', 'Search messages'],
  ['Esc', 'Leave the message box or search'],
  ['?', 'This list'],
];

/** The inbox's keyboard shortcuts, in a modal dialog (Escape or Close to leave). */
export function ShortcutsHelp({ open, onClose }: { open: boolean; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    if (open && !dialog.current?.open) dialog.current?.showModal();
    if (!open && dialog.current?.open) dialog.current.close();
  }, [open]);
  return (
    <dialog ref={dialog} className="shortcuts-help" aria-labelledby="shortcuts-title" onClose={onClose}>
      <h2 id="shortcuts-title">Keyboard shortcuts</h2>
      <p className="muted">Anywhere in the inbox, when you are not typing in a field.</p>
      <dl>
        {SHORTCUT_LIST.map(([key, what]) => (
          <div key={key} className="shortcut">
            <dt>
              <kbd>{key}</kbd>
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
      <button type="button" className="button" onClick={onClose} autoFocus>
        Close
      </button>
    </dialog>
  );
}
