import type { TReaction } from '../../../../shared/communication';
import { formatDateTime, usePhoneFormatter } from '../../lib/format';

/**
 * Reactions under a message. Who reacted is named when it is not obvious: the conversation has more
 * than one number (`showWho`), or the reactions come from different numbers (the client and the
 * firm's phone).
 */
export function ReactionChips({ reactions, showWho }: { reactions: TReaction[]; showWho: boolean }) {
  const format = usePhoneFormatter();
  if (!reactions.length) return null;
  const named = showWho || new Set(reactions.map((r) => r.from)).size > 1;
  return (
    <ul className="reaction-chips" aria-label="Reactions">
      {reactions.map((r) => {
        const who = format(r.from);
        return (
          <li key={r.from} title={`${r.emoji} from ${who}${r.at ? `, ${formatDateTime(new Date(r.at))}` : ''}`}>
            <span aria-hidden="true">{r.emoji}</span>
            <span className="visually-hidden">
              {r.emoji} from {who}
            </span>
            {named && (
              <span className="reaction-who" aria-hidden="true">
                {who.replace(/\s/g, '').slice(-4)}
              </span>
            )}
          </li>
        );
      })}
    </ul>
  );
}
