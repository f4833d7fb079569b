import type { TThreadSummary } from '../../lib/trpc';

/**
 * What a conversation is called: its client's name, else the profile name the number gave (marked
 * "~": the contact chose it, the firm did not), else null — the number stands for it then.
 */
export function threadTitle(thread: Pick<TThreadSummary, 'clientName' | 'contactName'>): string | null {
  if (thread.clientName) return thread.clientName;
  return thread.contactName ? `~${thread.contactName}` : null;
}
