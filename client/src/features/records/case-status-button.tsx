import { trpc, type TOutputs } from '../../lib/trpc';
import { useToast } from '../../ui/toasts';

type TCase = TOutputs['cases']['get'];

/** Close a case (its retention clock starts: server/records/README.md "Records") or reopen it; anyone who may see it. */
export function CaseStatusButton({ theCase }: { theCase: TCase }) {
  const utils = trpc.useUtils();
  const toast = useToast();
  const setStatus = trpc.cases.setStatus.useMutation({
    onSuccess: (changed) => {
      utils.cases.get.setData({ caseId: changed.id }, changed);
      void utils.cases.listForClient.invalidate({ clientId: changed.clientId });
      toast('success', changed.status === 'closed' ? `${changed.reference} is closed.` : `${changed.reference} is open again.`);
    },
    // The server's refusal, as it said it (an erased case cannot be reopened).
    onError: (error) => toast('error', error.message),
  });
  const closing = theCase.status === 'open';
  return (
    <button
      type="button"
      className="button ghost"
      disabled={setStatus.isPending}
      onClick={() => setStatus.mutate({ caseId: theCase.id, status: closing ? 'closed' : 'open' })}
    >
      {setStatus.isPending ? (closing ? 'Closing…' : 'Reopening…') : closing ? 'Close case' : 'Reopen case'}
    </button>
  );
}
