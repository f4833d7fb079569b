import type { TCommunication } from '../../../shared/communication';

/** Reactions under a message; who reacted is named when more than one number could have. */
export function ReactionChips({ reactions, showWho }: { reactions: NonNullable<TCommunication['metadata']['reactions']>; showWho: boolean }) {
  if (!reactions.length) return null;
  return (
    <ul className="reaction-chips" aria-label="Reactions">
      {reactions.map((r) => (
        <li key={r.from} title={`+${r.from}`}>
          <span aria-label={`reaction ${r.emoji}`}>{r.emoji}</span>
          {showWho && <span className="reaction-who">+{r.from.slice(-4)}</span>}
        </li>
      ))}
    </ul>
  );
}
