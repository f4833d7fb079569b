import type { TReaction } from '../../../../shared/communication';
import { formatDateTime, usePhoneFormatter } from '../../lib/format';

/** Who at the firm reacted, for the chips to name: the person signed in, and colleagues by id. */
export type TReactorNames = { meId: number | null; nameOf: (userId: number) => string | undefined };

/** The firm's own reaction: chosen by a person here (`by`), or made on the firm's phone (its number). */
export function isFirmReaction(reaction: TReaction, firmDigits: string | null): boolean {
  return reaction.by !== undefined || (firmDigits !== null && reaction.from === firmDigits);
}

/**
 * Reactions under a message: the client's and the firm's. The firm's says who chose it ("You", or
 * the colleague's name); a client's number is named when it is not obvious: the conversation has
 * more than one number (`showWho`), or the reactions come from different numbers.
 */
export function ReactionChips({
  reactions,
  showWho,
  firmDigits = null,
  names,
}: {
  reactions: TReaction[];
  showWho: boolean;
  /** The firm's number (digits): a reaction from it without `by` was made on the firm's phone. */
  firmDigits?: string | null;
  names?: TReactorNames;
}) {
  const format = usePhoneFormatter();
  if (!reactions.length) return null;
  const clients = reactions.filter((r) => !isFirmReaction(r, firmDigits));
  const named = showWho || new Set(clients.map((r) => r.from)).size > 1;
  return (
    <ul className="reaction-chips" aria-label="Reactions">
      {reactions.map((r) => {
        const firm = isFirmReaction(r, firmDigits);
        const who = firm ? firmReactor(r, names) : format(r.from);
        const label = firm ? shortName(r, who) : named ? who.replace(/\s/g, '').slice(-4) : null;
        const said = who === 'You' ? 'you' : who;
        return (
          <li
            key={r.from}
            className={firm ? 'firm' : undefined}
            data-from={firm ? 'firm' : 'client'}
            title={`${r.emoji} from ${said}${r.at ? `, ${formatDateTime(new Date(r.at))}` : ''}`}
          >
            <span aria-hidden="true">{r.emoji}</span>
            <span className="visually-hidden">
              {r.emoji} from {said}
            </span>
            {label && (
              <span className="reaction-who" aria-hidden="true">
                {label}
              </span>
            )}
          </li>
        );
      })}
    </ul>
  );
}

const UNKNOWN_COLLEAGUE = 'someone at the firm';

/** The chip's own word for the firm's reaction: "You", a colleague's first name, "Firm" for the firm's phone. */
function shortName(reaction: TReaction, who: string): string {
  if (reaction.by === undefined || who === UNKNOWN_COLLEAGUE) return 'Firm';
  return who === 'You' ? who : (who.split(' ')[0] ?? who);
}

/** "You", the colleague's name, or the firm's phone when it was made there. */
function firmReactor(reaction: TReaction, names: TReactorNames | undefined): string {
  if (reaction.by === undefined) return "the firm's phone";
  if (names?.meId === reaction.by) return 'You';
  return names?.nameOf(reaction.by) ?? UNKNOWN_COLLEAGUE;
}
