// The provider's limits (and the server's, chat-router): 4,096 characters of text, 1,024 of caption.
// Counted as the server counts them (JavaScript string length of the trimmed text).
export const TEXT_LIMIT = { limit: 4096, warnFrom: 3800, what: 'message' } as const;
export const CAPTION_LIMIT = { limit: 1024, warnFrom: 900, what: 'caption' } as const;

export type TLengthLimit = { limit: number; warnFrom: number; what: 'message' | 'caption' };
/** quiet: nothing to say; near: a counter; over: refused, with what to do. */
export type TLengthState = { state: 'quiet' } | { state: 'near' | 'over'; counter: string; refusal: string | null };

const count = (n: number, one: string, many: string) => `${n.toLocaleString('en-GB')} ${n === 1 ? one : many}`;

/** What to show under the text as it nears, or passes, its limit. */
export function describeLength(text: string, { limit, warnFrom, what }: TLengthLimit): TLengthState {
  const length = text.trim().length;
  if (length < warnFrom) return { state: 'quiet' };
  if (length <= limit) return { state: 'near', counter: `${count(limit - length, 'character', 'characters')} left`, refusal: null };
  return {
    state: 'over',
    counter: `${count(length - limit, 'character', 'characters')} over the limit`,
    refusal:
      what === 'caption'
        ? `A caption can be at most ${limit.toLocaleString('en-GB')} characters. Shorten it, or send the text as a message of its own.`
        : `A message can be at most ${limit.toLocaleString('en-GB')} characters. Shorten it, or send it as two messages.`,
  };
}
