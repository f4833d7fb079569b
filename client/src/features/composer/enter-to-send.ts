// Enter in the composer: on a desktop it sends (Shift+Enter starts a new line); on a touch device
// the on-screen keyboard has no Shift, so Enter starts a new line and the Send button sends.

type TKey = { key: string; shiftKey: boolean; isComposing: boolean };

/** Whether this key press sends the message (instead of adding a line). */
export function sendsOnEnter(event: TKey, touch: boolean): boolean {
  return event.key === 'Enter' && !event.shiftKey && !event.isComposing && !touch;
}

/** The hint inside the empty text box, saying what Enter does here. */
export function composerHint({ touch, caption }: { touch: boolean; caption: boolean }): string {
  if (caption) return touch ? 'Caption (optional)' : 'Caption (optional) — Enter to send the file';
  return touch ? 'Write a message' : 'Write a message — Enter to send, Shift+Enter for a new line';
}
