import { useMemo } from 'react';
import type { TTemplateValues } from '../../../../shared/templates';
import { trpc } from '../../lib/trpc';

/**
 * What the placeholders of firm wording (`values`) and of a provider template's fields (`context`)
 * are filled with: the client's first name, the case chosen for this message, the firm's name and number.
 */
export function useFillValues(clientName: string | null, selectedCase: { reference: string; title: string } | null | undefined) {
  const settings = trpc.settings.chat.useQuery(undefined, { staleTime: Infinity });
  const firstName = clientName?.split(' ')[0];
  const values = useMemo<TTemplateValues>(
    () => ({
      client_name: firstName,
      case_reference: selectedCase?.reference,
      case_title: selectedCase?.title,
      firm_name: settings.data?.firmName,
      firm_phone: settings.data?.firmPhone,
    }),
    [firstName, selectedCase?.reference, selectedCase?.title, settings.data?.firmName, settings.data?.firmPhone],
  );
  const context = {
    firstName: firstName ?? null,
    caseReference: selectedCase?.reference ?? null,
    firmName: settings.data?.firmName ?? null,
  };
  return { values, context };
}
