import { useMemo } from 'react';
import { trpc } from '../../lib/trpc';
import type { TWordingValues } from './wording-insertion';

/**
 * What the placeholders of firm wording (`values`) and of a provider template's fields (`context`)
 * are filled with: the client's names, the sender's, the case chosen for this message, the firm's name and number.
 */
export function useFillValues(clientName: string | null, selectedCase: { reference: string; title: string } | null | undefined) {
  const settings = trpc.settings.chat.useQuery(undefined, { staleTime: Infinity });
  const me = trpc.auth.me.useQuery(undefined, { staleTime: Infinity });
  const myName = me.data && 'name' in me.data ? me.data.name : undefined;
  const firstName = clientName?.split(' ')[0];
  const values = useMemo<TWordingValues>(
    () => ({
      clientFirstName: firstName,
      clientName: clientName ?? undefined,
      myName,
      client_name: firstName,
      case_reference: selectedCase?.reference,
      case_title: selectedCase?.title,
      firm_name: settings.data?.firmName,
      firm_phone: settings.data?.firmPhone,
    }),
    [firstName, clientName, myName, selectedCase?.reference, selectedCase?.title, settings.data?.firmName, settings.data?.firmPhone],
  );
  const context = {
    firstName: firstName ?? null,
    caseReference: selectedCase?.reference ?? null,
    firmName: settings.data?.firmName ?? null,
  };
  return { values, context };
}
