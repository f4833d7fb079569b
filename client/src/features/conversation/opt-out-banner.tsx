import { formatDateTime } from '../../lib/format';
import { trpc } from '../../lib/trpc';
import { ConfirmButton } from '../../ui/confirm-button';
import { useToast } from '../../ui/toasts';

type TProps = { client: { id: number; name: string; optedOutAt: Date | null; optOutSource: string | null } };

/** A client who asked to receive no more messages: said plainly; sends are refused by the server. */
export function OptOutBanner({ client }: TProps) {
  const me = trpc.auth.me.useQuery(undefined, { staleTime: Infinity });
  const utils = trpc.useUtils();
  const toast = useToast();
  const clear = trpc.clients.clearOptOut.useMutation({
    onSuccess: () => {
      toast('success', `${client.name} can be messaged again.`);
      void utils.clients.invalidate();
    },
    onError: (error) => toast('error', error.message),
  });
  if (!client.optedOutAt) return null;
  return (
    <p className="opt-out-banner" role="note">
      <span>
        {client.name} asked not to receive chat messages ({formatDateTime(client.optedOutAt)}
        {client.optOutSource ? `, ${client.optOutSource}` : ''}). Nothing can be sent until they ask to resume (by writing START).
      </span>
      {me.data?.role === 'director' && (
        <ConfirmButton
          label="Clear opt-out"
          question={`Only if ${client.name} asked to resume. Clear?`}
          confirmLabel="Clear"
          pending={clear.isPending}
          onConfirm={() => clear.mutate({ clientId: client.id })}
        />
      )}
    </p>
  );
}
