import { hasOverstackedCharacter, visibleLength } from './visible-length';
import { hasHiddenCharactersOutsideEmoji, hiddenCharacterMessage, withoutIgnorableCharacters } from './visible-text';

// A quick-reply button's title (server/messaging/README.md "Quick-reply buttons"), checked alike by the SPA as it is
// typed and by the server, which judges: the provider's 20 characters are those the client sees.

export const BUTTON_TITLE_MAX = 20;

/** What is wrong with a (trimmed, non-empty) title, in the words the person reads; none when nothing. */
export function buttonTitleProblems(title: string): string[] {
  const problems: string[] = [];
  if (visibleLength(title) > BUTTON_TITLE_MAX) problems.push(`A button title can be at most ${BUTTON_TITLE_MAX} characters`);
  if (hasOverstackedCharacter(title)) problems.push('A button title has a character with too many marks stacked on it: type it again');
  // A title is all the client reads of a button: nothing in it may be unseen or turn it around.
  if (hasHiddenCharactersOutsideEmoji(title)) problems.push(hiddenCharacterMessage('the button title'));
  return problems;
}

/** A title as the client tells two apart: composed the same way, without what is drawn as nothing, in any case. */
export const titleAsSeen = (title: string) => withoutIgnorableCharacters(title.normalize('NFC')).toLocaleLowerCase();
