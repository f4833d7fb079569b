/** Above the message box: a reply to the client, or an internal note for colleagues only. */
export function ComposeModeToggle({ note, onChange }: { note: boolean; onChange: (note: boolean) => void }) {
  return (
    <div className="compose-mode" role="group" aria-label="Write">
      <button type="button" className={note ? 'mode-tab' : 'mode-tab active'} aria-pressed={!note} onClick={() => onChange(false)}>
        Reply
      </button>
      <button type="button" className={note ? 'mode-tab note active' : 'mode-tab note'} aria-pressed={note} onClick={() => onChange(true)}>
        Internal note
      </button>
    </div>
  );
}
