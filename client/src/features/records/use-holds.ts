import { trpc, type TOutputs } from '../../lib/trpc';

export type THold = TOutputs['holds']['list'][number];

export const subjectHref = (subject: THold['subject']) => `/${subject.type === 'client' ? 'clients' : 'cases'}/${subject.id}`;

/** Releases a hold; every list of holds (the Records page's, a client's or a case's banner) is read again. */
export function useReleaseHold() {
  const utils = trpc.useUtils();
  return trpc.holds.release.useMutation({ onSuccess: () => void utils.holds.list.invalidate() });
}
