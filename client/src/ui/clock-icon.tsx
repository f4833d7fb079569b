/** A clock drawn in the text's colour (no emoji font needed): Schedule for later, the Scheduled link. */
export function ClockIcon({ size = 16 }: { size?: number }) {
  return (
    <svg viewBox="0 0 20 20" width={size} height={size} aria-hidden="true" focusable="false">
      <path
        fill="currentColor"
        d="M10 2a8 8 0 1 0 0 16 8 8 0 0 0 0-16Zm0 1.8a6.2 6.2 0 1 1 0 12.4 6.2 6.2 0 0 1 0-12.4ZM9.1 5.5v5.1l3.8 2.3.9-1.5-2.9-1.7V5.5H9.1Z"
      />
    </svg>
  );
}
