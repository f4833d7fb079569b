import { useEffect, useRef } from 'react';
import { useSearch } from 'wouter';
import { trpc } from '../../lib/trpc';
import { useDraft } from './use-draft';

/**
 * The case a message is filed on. The choice is part of the draft: a text naming a case is not sent
 * off that case's file. Unchosen, the case the conversation's recent messages are on is offered. A
 * choice lasts for one message unless it is pinned: a client with two open matters must not have
 * every later message filed on the first one picked.
 */
export function useCaseChoice(draftKey: string, clientId: number | null, proposedCaseId: number | undefined) {
  // '' = none chosen (the proposed case is offered), 'none' = no case on purpose, else a case id.
  const { text: caseText, setText: setCaseText } = useDraft(`${draftKey}:case`);
  const { text: pinText, setText: setPinText } = useDraft(`${draftKey}:case-pin`);
  const cases = trpc.cases.listForClient.useQuery({ clientId: clientId ?? 0 }, { enabled: clientId !== null });
  const proposed = cases.data?.some((c) => c.id === proposedCaseId && c.status === 'open') ? proposedCaseId : undefined;
  const caseId = caseText === 'none' ? undefined : Number(caseText) || proposed;
  const pinned = pinText === '1';
  // Opened from a case (its page's Message: ?case=id): that case is chosen, once, when it is this client's.
  const askedCase = Number(new URLSearchParams(useSearch()).get('case')) || undefined;
  const askedApplied = useRef(false);
  useEffect(() => {
    if (askedApplied.current || !askedCase || !cases.data?.some((c) => c.id === askedCase)) return;
    askedApplied.current = true;
    setCaseText(String(askedCase));
  }, [askedCase, cases.data, setCaseText]);
  return {
    cases: cases.data,
    caseId,
    /** No case was chosen: the one offered is the recent messages' case. */
    isProposed: caseText === '' && proposed !== undefined,
    selectedCase: cases.data?.find((c) => c.id === caseId),
    setCaseId: (id: number | undefined) => setCaseText(id ? String(id) : 'none'),
    pinned,
    setPinned: (pin: boolean) => setPinText(pin ? '1' : ''),
    /** A message went: an unpinned choice was for it alone. */
    noteSent: () => {
      if (!pinned) setCaseText('');
    },
  };
}

export type TCaseChoice = ReturnType<typeof useCaseChoice>;
