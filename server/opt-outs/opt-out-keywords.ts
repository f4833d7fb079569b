// A client may ask to receive no more messages: the provider's user_preferences event (`stop`,
// then `resume`) or a text that is exactly STOP / UNSUBSCRIBE (START resumes). The number is marked
// (time and source kept); every send to it is refused by the server until it is cleared.

export type TOptOutChange = { peerPhone: string; optedOut: boolean; at: Date | null; source: string };

// "Stop promotions" is the quick-reply button marketing templates carry.
const STOP_WORDS = new Set(['STOP', 'UNSUBSCRIBE', 'STOP PROMOTIONS']);
const START_WORDS = new Set(['START']);

/**
 * The keyword a text is, if any: compared as a person reads it — compatibility forms folded
 * (fullwidth ＳＴＯＰ), invisible characters and surrounding punctuation or quotes dropped ("STOP.",
 * "Stop!"), letters spaced out joined (S T O P). A text saying more than the keyword is not one.
 */
function keywordOf(body: string): string {
  const text = body
    .normalize('NFKC')
    .replace(/[\p{Cf}]/gu, '')
    .replace(/\s+/gu, ' ')
    .trim()
    .toUpperCase()
    .replace(/^[\p{P}\p{S} ]+|[\p{P}\p{S} ]+$/gu, '');
  return /^(\p{L} )+\p{L}$/u.test(text) ? text.replace(/ /g, '') : text;
}

/** The opt-out change an inbound text (or a button's text) asks for, if it is exactly one of the keywords. */
export function optOutChangeOfText(text: { peerPhone: string; body: string; providerTimestamp: Date | null }): TOptOutChange | null {
  const word = keywordOf(text.body);
  if (STOP_WORDS.has(word)) return { peerPhone: text.peerPhone, optedOut: true, at: text.providerTimestamp, source: `message "${word}"` };
  if (START_WORDS.has(word)) return { peerPhone: text.peerPhone, optedOut: false, at: text.providerTimestamp, source: `message "${word}"` };
  return null;
}
