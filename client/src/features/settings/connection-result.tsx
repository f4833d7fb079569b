/** How each answer of the provider connection check is coloured. */
export const STATUS_TONE: Record<string, string> = {
  Live: 'ok',
  'Demo mode': 'info',
  Unauthorized: 'bad',
  'Not provisioned': 'warn',
  'Rate-limited': 'warn',
  Unreachable: 'bad',
  Error: 'bad',
};

type TCheck = { data?: { status: string; detail: string }; error: { message: string } | null };

/**
 * A connection check's answer. The live region is there before the answer, so a screen reader
 * hears the answer when it arrives (a region added with its text is often not read).
 */
export function ConnectionResult({ check }: { check: TCheck }) {
  return (
    <>
      <div aria-live="polite" className="connection-live">
        {check.data && (
          <div className={`connection-result tone-${STATUS_TONE[check.data.status] ?? 'info'}`}>
            <strong>{check.data.status}</strong>
            <span>{check.data.detail}</span>
          </div>
        )}
      </div>
      {check.error && (
        <p className="form-error" role="alert">
          {check.error.message}
        </p>
      )}
    </>
  );
}
