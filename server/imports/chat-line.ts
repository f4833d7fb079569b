import { ANDROID_ATTACHED, DELETED_PHRASES, EDITED_SUFFIX, IOS_ATTACHED, OMITTED_PHRASES, SYSTEM_PHRASES } from './chat-phrases';

// One line of a WhatsApp export, read (server/imports/README.md "History from the phone"). A line that
// starts a message carries a date and time in the phone's own format; any other line continues the
// message before it. The date's parts are kept as written: which is the day and which the month is
// decided for the whole file once every line has been read (date-order.ts).

/** The date and time as written: three numbers in the phone's order, a clock, maybe AM/PM. */
export type TWrittenTime = { parts: [number, number, number]; hour: number; minute: number; second: number; half: 'am' | 'pm' | null };

/** A line that starts a message: when, who (null: the chat's own line) and what it says. */
export type TMessageStart = { time: TWrittenTime; sender: string | null; text: string; marked: boolean };

// Invisible marks iOS and Android put around names and file lines, and the narrow spaces before AM/PM.
const MARKS = /[\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;
const SPACES = /[\u00a0\u202f\u2007]/g;

const DATE = String.raw`(\d{1,4})([./-])(\d{1,2})\2(\d{1,4})`;
// "29/11/2026, 09:14", "29/11/2026 à 09:14", "29.11.26 um 09:14", "11/29/26, 9:14 PM", "29/11/26, 9:14 p. m."
const BETWEEN = String.raw`,?\s+(?:à\s+|um\s+|a las\s+|às\s+)?`;
const CLOCK = String.raw`(\d{1,2})[:.](\d{2})(?:[:.](\d{2}))?(?:\s*([ap])\.?\s?m\.?)?`;
const IOS_START = new RegExp(String.raw`^\[${DATE}${BETWEEN}${CLOCK}\]\s(.*)$`, 'i');
const ANDROID_START = new RegExp(String.raw`^${DATE}${BETWEEN}${CLOCK}\s[-–]\s(.*)$`, 'i');
const SENDER = /^([^:]{1,200}?):\s(.*)$/s;

/** The line as a message's start, or null when it continues the message before it. */
export function readMessageStart(line: string): TMessageStart | null {
  const plain = line.replace(SPACES, ' ');
  const unmarked = plain.replace(/^[\u200e\u200f\ufeff]+/, '');
  const ios = IOS_START.exec(unmarked);
  const match = ios ?? ANDROID_START.exec(unmarked);
  if (!match) return null;
  const [, a, , b, c, hour, minute, second, half, rest] = match;
  const time: TWrittenTime = {
    parts: [Number(a), Number(b), Number(c)],
    hour: Number(hour),
    minute: Number(minute),
    second: Number(second ?? 0),
    half: half ? (half.toLowerCase() === 'a' ? 'am' : 'pm') : null,
  };
  if (time.minute > 59 || time.second > 59 || time.hour > 23 || (time.half && (time.hour < 1 || time.hour > 12))) return null;
  const said = SENDER.exec(rest!);
  // iOS marks its own lines (notices, files left out) with an invisible mark before the text.
  if (!said) return { time, sender: null, text: rest!.replace(MARKS, ''), marked: false };
  const text = said[2]!;
  return {
    time,
    sender: said[1]!.replace(MARKS, '').trim(),
    text: text.replace(/^[\u200e\u200f]+/, ''),
    marked: /^[\u200e\u200f]/.test(text),
  };
}

/** What a message's text says it is, once its lines are joined. */
export type TMessageContent =
  | { kind: 'system' }
  | { kind: 'text'; text: string; edited: boolean }
  | { kind: 'file'; fileName: string; caption: string }
  | { kind: 'omitted' }
  | { kind: 'deleted' };

export function readContent(sender: string | null, text: string, marked: boolean): TMessageContent {
  const firstLine = (text.split('\n', 1)[0] ?? '').replace(MARKS, '').trim();
  const caption = text.includes('\n') ? text.slice(text.indexOf('\n') + 1).trim() : '';
  const file = IOS_ATTACHED.exec(firstLine)?.[2] ?? ANDROID_ATTACHED.exec(firstLine)?.[1];
  if (file) return { kind: 'file', fileName: file.trim(), caption };
  if (OMITTED_PHRASES.some((phrase) => phrase.test(firstLine))) return { kind: 'omitted' };
  if (DELETED_PHRASES.some((phrase) => phrase.test(firstLine))) return { kind: 'deleted' };
  if (sender === null || (marked && SYSTEM_PHRASES.some((phrase) => phrase.test(firstLine)))) return { kind: 'system' };
  const edited = EDITED_SUFFIX.test(text);
  return { kind: 'text', text: edited ? text.replace(EDITED_SUFFIX, '') : text, edited };
}
