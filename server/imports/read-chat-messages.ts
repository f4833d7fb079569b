import { readContent, readMessageStart, type TMessageContent, type TWrittenTime } from './chat-line';
import { DateOrderVote, instantOfWritten, type TDateOrder } from './date-order';
import type { TChatExport } from './chat-export-file';
import { ImportRefusal } from './import-refusal';

// The export's messages, one at a time (its lines joined: a message runs until the next line that
// starts one), so a 20,000-message chat is read with flat memory, once to preview and once to import.

/** One message of the export, as written: `line` is where it starts in the chat's text (from 1). */
export type TChatMessage = { line: number; time: TWrittenTime; sender: string | null; content: TMessageContent };

/** The longest message kept whole: WhatsApp's own limit is 65,536 characters. */
const MAX_MESSAGE_CHARS = 65_536;

export async function* readChatMessages(source: AsyncIterable<string>): AsyncGenerator<TChatMessage> {
  let current: { line: number; time: TWrittenTime; sender: string | null; text: string; marked: boolean } | null = null;
  let lineNo = 0;
  const finish = (): TChatMessage => ({
    line: current!.line,
    time: current!.time,
    sender: current!.sender,
    content: readContent(current!.sender, current!.text, current!.marked),
  });
  for await (const line of source) {
    lineNo += 1;
    const start = readMessageStart(line);
    if (start) {
      if (current) yield finish();
      current = { line: lineNo, time: start.time, sender: start.sender, text: start.text, marked: start.marked };
    } else if (current) {
      if (current.text.length + line.length < MAX_MESSAGE_CHARS) current.text += `\n${line}`;
    } else if (line.trim() !== '' && lineNo > 5) {
      throw new ImportRefusal('This is not a WhatsApp chat export: its first lines carry no date and time.');
    }
  }
  if (current) yield finish();
}

export type TParticipant = { name: string; messages: number };

/** What a preview shows: who wrote how much, the files there and missing, the span, the date order. */
export type TExportSummary = {
  participants: TParticipant[];
  messages: number;
  attachments: number;
  missingMedia: number;
  system: number;
  firstAt: string | null;
  lastAt: string | null;
  dateOrder: TDateOrder;
  ambiguous: boolean;
  /** When the export cannot tell: its span read day first and month first (null: that reading has no such date, or a future one). */
  readings?: Record<'DMY' | 'MDY', { firstAt: string; lastAt: string } | null>;
};

/**
 * Reads the whole export once: who wrote how much, its files, its span and its date order. `now`:
 * no message may be later than a day after it (a later one is a date read the wrong way round).
 */
export async function summarizeExport(chat: TChatExport, timeZone: string, now: Date): Promise<TExportSummary> {
  const participants = new Map<string, number>();
  const vote = new DateOrderVote();
  let messages = 0;
  let attachments = 0;
  let missingMedia = 0;
  let system = 0;
  let first: TWrittenTime | null = null;
  let last: TWrittenTime | null = null;
  for await (const message of readChatMessages(chat.lines())) {
    vote.observe(message.time, message.line);
    if (message.content.kind === 'system') {
      system += 1;
      continue;
    }
    messages += 1;
    first ??= message.time;
    last = message.time;
    participants.set(message.sender!, (participants.get(message.sender!) ?? 0) + 1);
    if (message.content.kind === 'omitted') missingMedia += 1;
    if (message.content.kind === 'file') {
      if (chat.fileNames.has(message.content.fileName)) attachments += 1;
      else missingMedia += 1;
    }
  }
  if (messages === 0 || !first || !last) {
    throw new ImportRefusal(
      'This is not a WhatsApp chat export: it holds no message written as WhatsApp writes them (a date, a time, a name).',
    );
  }
  const latest = now.getTime() + 24 * 3_600_000;
  const spanOf = (order: TDateOrder) => {
    const from = instantOfWritten(first, order, timeZone);
    const to = instantOfWritten(last, order, timeZone);
    return from && to && to.getTime() <= latest ? { firstAt: from.toISOString(), lastAt: to.toISOString() } : null;
  };
  const order = vote.result(spanOf);
  return {
    participants: [...participants]
      .map(([name, count]) => ({ name, messages: count }))
      .sort((a, b) => b.messages - a.messages || a.name.localeCompare(b.name)),
    messages,
    attachments,
    missingMedia,
    system,
    ...spanOf(order.dateOrder)!,
    ...order,
    ...(order.ambiguous ? { readings: { DMY: spanOf('DMY'), MDY: spanOf('MDY') } } : {}),
  };
}
