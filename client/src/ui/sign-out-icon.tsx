/** An arrow leaving a door, in the text's colour: Sign out where a phone's top bar has no room for the words. */
export function SignOutIcon({ size = 18 }: { size?: number }) {
  return (
    <svg viewBox="0 0 20 20" width={size} height={size} aria-hidden="true" focusable="false">
      <path fill="currentColor" d="M3 3h8v2H5v10h6v2H3V3Zm10.6 3.4L17.2 10l-3.6 3.6-1.4-1.4 1.2-1.2H8V9h5.4l-1.2-1.2 1.4-1.4Z" />
    </svg>
  );
}
