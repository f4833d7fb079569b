import type { TThreadItem } from './inbox';

/** Who is looking: the signed-in member of staff a list or a live stream answers. */
export type TViewer = { id: number; role: 'director' | 'staff' };

/**
 * Whether `viewer` may see this chat record. The one rule: the live stream sends a change to a
 * person only when this says yes, and it is the rule the lists follow. Today every signed-in, active
 * member of staff sees every chat (the lists need only `authedProcedure`, and a deactivated person
 * has no session); a later wall (say, a client's matters kept to the people on them) is written
 * here, with the same condition added to the lists' SQL beside it.
 */
export function canSeeChat(_viewer: TViewer, _item: TThreadItem): boolean {
  return true;
}
