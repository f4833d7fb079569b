import { MenuButton, type TMenuItem } from '../../ui/menu-button';

/** The six reactions people reach for first. */
export const COMMON_REACTIONS = ['👍', '❤️', '😂', '😮', '😢', '🙏'] as const;

/**
 * "React" under a client's message: a small menu of the common reactions, the firm's current one
 * marked (with Remove to take it away). A menu button, so the keyboard opens it (Enter, Space, ↓),
 * moves through it and Escape closes it.
 */
export function ReactionPicker({
  current,
  onChoose,
  pending,
  speaker,
}: {
  /** The firm's reaction now, if any. */
  current: string | null;
  onChoose: (emoji: string) => void;
  pending: boolean;
  /** Whose message it is, for the button's name ("React to Amelia Hart's message"). */
  speaker: string;
}) {
  // A reaction made on the firm's phone may be none of the six: it is offered too, marked.
  const emojis: string[] =
    current && !(COMMON_REACTIONS as readonly string[]).includes(current) ? [current, ...COMMON_REACTIONS] : [...COMMON_REACTIONS];
  // One change at a time: a second pick while the first is on its way is not taken.
  const pick = (emoji: string) => {
    if (!pending) onChoose(emoji);
  };
  const items: TMenuItem[] = emojis.map((emoji) => ({ key: emoji, label: emoji, current: emoji === current, onSelect: () => pick(emoji) }));
  if (current) items.push({ key: 'remove', label: 'Remove', onSelect: () => pick('') });
  return (
    <span className="reaction-picker">
      <MenuButton
        className="button small ghost react-button"
        ariaLabel={`React to ${speaker === 'You' ? 'your' : `${speaker}’s`} message`}
        menuLabel="Reactions"
        items={items}
        align="end"
      >
        <span aria-hidden="true">☺</span>
        <span className="react-word">React</span>
      </MenuButton>
    </span>
  );
}
