import { useId, useState } from 'react';
import { trpc } from '../../lib/trpc';
import { useToast } from '../../ui/toasts';

type TCase = { id: number; reference: string; title: string; status: 'open' | 'closed' };

type TProps = {
  clientId: number;
  cases: TCase[];
  selected: number[];
  onDone: () => void;
};

/**
 * Moves the records chosen on a client's timeline to one of the client's cases, or to none, in one
 * go (the server checks every id is this client's and records the move in the audit trail).
 */
export function RefileBar({ clientId, cases, selected, onDone }: TProps) {
  const utils = trpc.useUtils();
  const toast = useToast();
  const [target, setTarget] = useState('');
  const selectId = useId();
  const refile = trpc.timeline.refile.useMutation({
    onSuccess: async ({ moved }, input) => {
      const where = input.caseId === null ? 'no case' : (cases.find((c) => c.id === input.caseId)?.reference ?? 'the case');
      toast('success', moved === 1 ? `1 record moved to ${where}.` : `${moved} records moved to ${where}.`);
      onDone();
      await Promise.all([utils.timeline.invalidate(), utils.inbox.thread.invalidate()]);
    },
    onError: (error) => toast('error', error.message),
  });
  if (selected.length === 0) return null;
  const move = () => {
    if (!target) return;
    refile.mutate({ clientId, ids: selected, caseId: target === 'none' ? null : Number(target) });
  };
  return (
    <div className="refile-bar" role="region" aria-label="Move selected records">
      <span>{selected.length === 1 ? '1 record selected' : `${selected.length} records selected`}</span>
      <label htmlFor={selectId}>Move to</label>
      <select id={selectId} value={target} onChange={(e) => setTarget(e.target.value)}>
        <option value="">Choose a case…</option>
        <option value="none">No case</option>
        {cases.map((c) => (
          <option key={c.id} value={c.id}>
            {c.reference} — {c.title}
            {c.status === 'closed' ? ' (closed)' : ''}
          </option>
        ))}
      </select>
      <button type="button" className="button small" onClick={move} disabled={!target || refile.isPending}>
        {refile.isPending ? 'Moving…' : 'Move'}
      </button>
      <button type="button" className="button ghost small" onClick={onDone}>
        Clear selection
      </button>
    </div>
  );
}
