/** What a verification found of the trail's signed checkpoints (server/audit/check-checkpoints.ts). */
export type TCheckpointsSummary = {
  ok: boolean;
  signaturesChecked: boolean;
  count: number;
  newest: { eventId: number; at: Date } | null;
  problem?: string;
};

/**
 * The checkpoints' part of a verification, in a sentence: npm run audit:verify and the Audit page say
 * the same. `withProblem: false` where the problem is already said (the page's verdict above it).
 */
export function describeCheckpoints(
  check: TCheckpointsSummary,
  formatTime: (at: Date) => string,
  { withProblem = true }: { withProblem?: boolean } = {},
): string {
  if (check.count === 0) return 'Signed checkpoints: none yet.';
  const newest = check.newest ? `, the newest at ${formatTime(check.newest.at)} (event #${check.newest.eventId})` : '';
  const verdict = !check.ok
    ? withProblem
      ? `NOT valid: ${check.problem}`
      : 'NOT all valid'
    : check.signaturesChecked
      ? 'all valid'
      : 'every head on the chain (signatures not checked)';
  return `Signed checkpoints: ${check.count.toLocaleString('en-GB')}${newest} — ${verdict}.`;
}
