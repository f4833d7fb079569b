import { trpc } from '../../lib/trpc';
import { MenuButton } from '../../ui/menu-button';
import { useToast } from '../../ui/toasts';
import { personLabel, personMenuItems } from './people-choices';
import type { TPersonRef } from './use-ownership-actions';

/**
 * The person at the firm responsible for a client, on the client's page: a menu button
 * ("Responsible person: Sam Staff") whose items are the people who may see the client, and
 * Nobody. A menu, not a select, so that arrowing through the names saves nothing: only a pick
 * does, once. The change is said in a notice; a refusal beside it, in the server's words.
 */
export function ResponsiblePerson({
  clientId,
  clientName,
  responsible,
}: {
  clientId: number;
  clientName: string;
  responsible: TPersonRef | null;
}) {
  const utils = trpc.useUtils();
  const toast = useToast();
  const people = trpc.inbox.people.useQuery({ clientId });
  const me = trpc.auth.me.useQuery(undefined, { staleTime: Infinity }).data;
  const set = trpc.clients.setResponsible.useMutation({
    onSuccess: ({ responsible: now }) => {
      void utils.clients.get.invalidate({ clientId });
      toast(
        'success',
        now
          ? `${now.id === me?.id ? 'You are' : `${now.name} is`} now responsible for ${clientName}.`
          : `No one is responsible for ${clientName} now.`,
      );
    },
  });
  // The menu stays enabled while a pick is saved (a disabled button drops the keyboard's focus);
  // a second pick meanwhile, or a pick of the one already set, is let go.
  const choose = (userId: number | null) => {
    if (!set.isPending && userId !== (responsible?.id ?? null)) set.mutate({ clientId, userId });
  };
  return (
    <div className="responsible-person">
      <MenuButton
        className="button small ghost owner-button"
        menuLabel={`Make responsible for ${clientName}`}
        error={people.isError ? people.error.message : null}
        loading="Loading people…"
        items={
          people.data
            ? personMenuItems({
                people: people.data,
                myId: me?.id,
                current: responsible,
                none: 'Nobody',
                mark: 'current',
                onChoose: choose,
              })
            : null
        }
      >
        {/* One line of text, so the name is read (and found) as "Responsible person: Sam Staff". */}
        <span className="owner-text">
          <span className="owner-role">Responsible person:</span> {responsible ? personLabel(responsible, me?.id) : 'Nobody yet'}
        </span>
        <span aria-hidden="true">▾</span>
      </MenuButton>
      {set.error && (
        <p className="form-error" role="alert">
          {set.error.message}
        </p>
      )}
    </div>
  );
}
