/** A padlock drawn in the text's colour: no emoji font needed, the same on every device. */
function LockIcon() {
  return (
    <svg className="lock-icon" viewBox="0 0 16 16" width="12" height="12" aria-hidden="true" focusable="false">
      <path
        fill="currentColor"
        d="M8 1a3.5 3.5 0 0 0-3.5 3.5V6H4a1.5 1.5 0 0 0-1.5 1.5v6A1.5 1.5 0 0 0 4 15h8a1.5 1.5 0 0 0 1.5-1.5v-6A1.5 1.5 0 0 0 12 6h-.5V4.5A3.5 3.5 0 0 0 8 1Zm2 5H6V4.5a2 2 0 1 1 4 0V6Z"
      />
    </svg>
  );
}

/**
 * Marks a restricted client or case (server/access/README.md "Ethical walls"): seen as a padlock and the word, heard
 * as "Restricted" once (the word itself is hidden from screen readers so it is not said twice).
 */
export function LockMark() {
  return (
    <span className="lock-mark" role="img" aria-label="Restricted" title="Restricted: only its members see it">
      <LockIcon />
      <span aria-hidden="true">Restricted</span>
    </span>
  );
}
