import { useMemo } from 'react';
import type { TCommunication } from '../../../../shared/communication';
import type { TQuoted } from './reply-quote';

type TQuotable = Pick<TCommunication, 'id' | 'body' | 'direction' | 'metadata' | 'attachments'>;

/**
 * What a reply quotes, looked up among the messages loaded (by the provider's id): undefined for a
 * message that is no reply, null for one whose quoted message is not among them.
 */
export function useQuotedOf(items: readonly TQuotable[] | undefined): (item: TQuotable) => TQuoted | null | undefined {
  const byProviderId = useMemo(
    () => new Map((items ?? []).filter((i) => i.metadata.chat_msg_id).map((i) => [i.metadata.chat_msg_id!, i])),
    [items],
  );
  return (item) => {
    if (!item.metadata.context_id) return undefined;
    const quoted = byProviderId.get(item.metadata.context_id);
    return quoted
      ? {
          id: quoted.id,
          body: quoted.body,
          direction: quoted.direction,
          kind: quoted.metadata.kind ?? 'text',
          fileName: quoted.attachments[0]?.fileName ?? null,
        }
      : null;
  };
}
