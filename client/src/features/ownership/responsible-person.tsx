import { trpc } from '../../lib/trpc';
import { peopleChoices, personLabel } from './people-choices';
import type { TPersonRef } from './use-ownership-actions';

/**
 * The person at the firm responsible for a client, on the client's page: any of the people who may
 * see the client can set it. A refusal is said beside it, in the server's words.
 */
export function ResponsiblePerson({ clientId, responsible }: { clientId: number; responsible: TPersonRef | null }) {
  const utils = trpc.useUtils();
  const people = trpc.inbox.people.useQuery({ clientId });
  const me = trpc.auth.me.useQuery(undefined, { staleTime: Infinity }).data;
  const set = trpc.clients.setResponsible.useMutation({
    onSuccess: () => void utils.clients.get.invalidate({ clientId }),
  });
  const choices = peopleChoices(people.data ?? [], me?.id, responsible);
  return (
    <div className="responsible-person">
      <label className="compact-field">
        <span>Responsible person</span>
        <select
          value={responsible ? String(responsible.id) : ''}
          onChange={(e) => set.mutate({ clientId, userId: e.target.value ? Number(e.target.value) : null })}
          disabled={set.isPending}
        >
          <option value="">Nobody yet</option>
          {choices.map((p) => (
            <option key={p.id} value={p.id}>
              {personLabel(p, me?.id)}
            </option>
          ))}
        </select>
      </label>
      {set.error && (
        <p className="form-error" role="alert">
          {set.error.message}
        </p>
      )}
    </div>
  );
}
