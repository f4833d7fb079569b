import type { TReceiptHistory } from '../../shared/communication';
import { describeCodePoint } from '../../shared/visible-text';
import { formatNumber as formatStoredNumber } from '../core/phone-input';
import { exhibitPath } from './exhibit-file-name';
import { isHeld, notHeldReason } from './exhibit-held';
import type { TExportExhibit, TExportHeader, TExportMessage } from './read-export';

// The words of the PDF export for one message (server/export/README.md "Evidence exports"): who, when, what it
// answers, its files as numbered exhibits, and its record lines. Plain strings; render-pdf.ts draws them.

/** A time as the export writes it: the firm's zone with UTC beside (firm-time.ts). */
export type TWhen = (iso: string | null) => string;

const DIRECTION_LABEL = { inbound: 'From the client', outbound: 'From the firm' } as const;

const formattedNumbers = new Map<string, string>();
/**
 * "+44 7700 900123" with no-break spaces inside, so a line never ends in the middle of a number.
 * Formatting is slow next to drawing; a chat has few numbers, so each is formatted once.
 */
export function formatNumber(digits: string | null): string {
  if (!digits) return 'unknown number';
  let text = formattedNumbers.get(digits);
  if (text === undefined) {
    if (formattedNumbers.size >= 1_000) formattedNumbers.clear();
    formattedNumbers.set(digits, (text = formatStoredNumber(digits).replace(/ /g, '\u00A0')));
  }
  return text;
}

/**
 * A name on one line: a line break in it (a stored file name, a profile name from a phone, old
 * records) is written as its code, `[U+000A]`, so it cannot start a line of its own that reads as
 * part of the record. Only names: in a message's text a line break is the sender's.
 */
export const oneLine = (name: string) => name.replace(/[\r\n]/g, describeCodePoint);

const formatBytes = (size: number | null) => (size === null ? 'size unknown' : `${size.toLocaleString('en-GB')} bytes`);

export function describeSubject(subject: TExportHeader['subject']): string {
  const numbers = subject.numbers.map(formatNumber).join(', ') || 'no number on file';
  return subject.type === 'client'
    ? `Client ${oneLine(subject.name)} (no. ${subject.id}) · ${numbers}`
    : `Case ${oneLine(subject.reference ?? '')} "${oneLine(subject.name)}" (no. ${subject.id}) for ${oneLine(subject.clientName)} · ${numbers}`;
}

/** The firm's number a message went through, named when it is not the main one (number 1: every message before there were several). */
function throughNumber(message: TExportMessage): string {
  const number = message.firmNumber;
  if (!number || number.id === 1) return '';
  return ` · through the firm's ${oneLine(number.label)} (${formatNumber(number.phone)})`;
}

function describeSender(message: TExportMessage): string {
  if (message.imported) {
    const side =
      message.direction === 'inbound' ? `${DIRECTION_LABEL.inbound} · ${formatNumber(message.peerPhone)}` : DIRECTION_LABEL.outbound;
    return `${side} · written by "${oneLine(message.imported.sender)}" · ${message.imported.statement} (line ${message.imported.line} of the export, SHA-256 ${message.imported.fileSha256.slice(0, 16)}…)`;
  }
  if (message.internal) return `Internal note by ${oneLine(message.sentBy?.name ?? 'a former colleague')} · not sent to the client`;
  if (message.direction === 'inbound') {
    return `${DIRECTION_LABEL.inbound} · ${formatNumber(message.peerPhone)}${message.contactName ? ` (profile name "${oneLine(message.contactName)}")` : ''}${throughNumber(message)}`;
  }
  const by = message.sentBy
    ? `sent by ${oneLine(message.sentBy.name)}`
    : message.fromFirmPhone
      ? "sent from the firm's phone"
      : 'sender not recorded';
  return `${DIRECTION_LABEL.outbound} · ${by} · to ${formatNumber(message.peerPhone)}${throughNumber(message)}`;
}

/**
 * The message's first line: when, who, what kind of copy it is, and (`withCase`: in a client's
 * export, which spans their cases) the case it is filed on.
 */
export function describeHeading(message: TExportMessage, when: TWhen, withCase = false): string {
  return (
    `${when(message.providerTime ?? message.storedTime)} · ${describeSender(message)}` +
    `${withCase && message.caseReference !== null ? ` · case ${oneLine(message.caseReference)}` : ''}` +
    `${message.forwarded ? ' · forwarded' : ''}${message.resentFrom !== null ? ` · Resent copy of record ${message.resentFrom}` : ''}`
  );
}

/** What a reply answers, quoted; or that the message it answers is not in this record. */
export function describeQuote(message: TExportMessage, when: TWhen): string | null {
  if (!message.replyTo) return null;
  const quoted = message.quoted;
  if (!quoted) return `In reply to a message not in this record (provider id ${message.replyTo})`;
  const side = quoted.direction === 'inbound' ? 'the client' : quoted.direction === 'outbound' ? 'the firm' : 'a note';
  return `In reply to ${side}, ${when(quoted.at)} (record ${quoted.id}): “${quoted.excerpt}”`;
}

/** The text as sent; a pressed button says so; no text says what the message was. */
export function describeBody(message: TExportMessage): string {
  if (message.kind === 'button' && message.direction === 'inbound') return `Pressed the button “${message.body}”`;
  return message.body || `(${message.kind}, no text)`;
}

/** The firm's question's buttons: "Offered buttons: [Yes] [No] [Call me]". */
export function describeButtons(message: TExportMessage): string | null {
  const titles = (message.buttons ?? []).map((button) => `[${oneLine(String(button.title))}]`);
  return titles.length ? `Offered buttons: ${titles.join(' ')}` : null;
}

type TFile = Omit<TExportExhibit, 'messageId' | 'storedTime'>;

/** "contract.pdf"; "(no name)" for a name of nothing but spaces; "image, no file name" for a file sent without one. */
const nameOf = (file: { fileName: string | null; kind: string }) =>
  file.fileName === null ? `${file.kind}, no file name` : /^\s*$/u.test(file.fileName) ? '(no name)' : oneLine(file.fileName);
/** Where a court bundle holds the file ("exhibits/001-file.jpg"), so an exhibit named only by its kind can be matched to its file. */
const inBundle = (file: TFile) => `bundle file ${exhibitPath(file.exhibit, file.fileName, file.mimeType)}`;

/** Under a drawn photo: "Exhibit 7 · photo.jpg · bundle file exhibits/007-photo.jpg". */
export function describePhotoCaption(file: TFile): string {
  return `Exhibit ${file.exhibit} · ${nameOf(file)} · ${inBundle(file)}`;
}

/** Under the caption: what the file is, exactly. */
export function describePhotoDetail(file: TFile): string {
  return `${file.mimeType} · ${formatBytes(file.size)} · SHA-256 ${file.sha256 ?? 'unknown'}`;
}

/**
 * A file not drawn: "Exhibit 12: contract.pdf · bundle file exhibits/012-contract.pdf ·
 * application/pdf · 48,213 bytes · SHA-256 …"; a file whose bytes the firm does not hold says why
 * (notHeldReason: a plain PDF is no bundle, so it is "not held", not "not in the bundle");
 * `notDrawn` says why a photo is listed rather than shown.
 */
export function describeExhibit(file: TFile, notDrawn?: string): string {
  const notHeld = notHeldReason(file, 'record');
  const held = notHeld
    ? `${file.mimeType} · file not held by the firm: ${notHeld}`
    : `${inBundle(file)} · ${file.mimeType} · ${formatBytes(file.size)} · SHA-256 ${file.sha256 ?? 'unknown'}`;
  return `Exhibit ${file.exhibit}: ${nameOf(file)} · ${held}${notDrawn ? ` · photo not drawn: ${notDrawn}` : ''}`;
}

/** Pictures, drawn when held; in their place a box saying why when not (render-pdf.ts). */
const PICTURE_TYPES = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/heic']);

/** A photo the firm does not hold: it gets a box where it would have been drawn, not only a line. */
export function isMissingPhoto(file: TFile): boolean {
  return !isHeld(file) && (file.kind === 'image' || PICTURE_TYPES.has(file.mimeType.split(';')[0]!.trim().toLowerCase()));
}

/** A line of the index of exhibits: the file, and the record and time it came with. */
export function describeIndexEntry(exhibit: TExportExhibit, when: TWhen): string {
  return `${describeExhibit(exhibit)} · record ${exhibit.messageId}, ${when(exhibit.storedTime)}`;
}

function formatReceipts(receipts: TReceiptHistory, when: TWhen): string {
  const parts = (['sent', 'delivered', 'read', 'failed'] as const)
    .filter((status) => receipts[status])
    .map((status) => {
      const receipt = receipts[status]!;
      const failure =
        status === 'failed' && receipt.code != null ? ` (code ${receipt.code}${receipt.details ? `: ${receipt.details}` : ''})` : '';
      return `${status} ${when(receipt.at)}${failure}`;
    });
  return parts.length ? parts.join(' · ') : 'none';
}

/** The lines under a message's text: ids, times, status, receipts and what happened to it since. */
export function describeRecord(message: TExportMessage, when: TWhen): string[] {
  if (message.internal) return [`Record ${message.id} · internal note, never sent · stored ${when(message.storedTime)}`];
  // The provider dates what it delivers to the firm; for what the firm sent, its times are the receipts.
  const providerTime = message.providerTime || message.direction !== 'outbound' ? ` · provider time ${when(message.providerTime)}` : '';
  const lines = [`Record ${message.id} · provider id ${message.chatMsgId ?? 'none'}${providerTime} · stored ${when(message.storedTime)}`];
  if (message.direction === 'outbound') {
    lines.push(
      `Status ${message.status ?? '—'} · receipts: ${formatReceipts(message.receipts, when)}${message.error ? ` · error: ${message.error}` : ''}`,
    );
  } else if (message.readByFirmAt) {
    lines.push(`First opened in Firm Chat ${when(message.readByFirmAt)}`);
  }
  if (message.truncated)
    lines.push(
      `Text cut to what is stored: the client sent ${message.truncated.length.toLocaleString('en-GB')} characters, SHA-256 ${message.truncated.sha256}`,
    );
  for (const edit of message.edits) lines.push(`Earlier text, replaced ${when(edit.at)}: ${edit.body}`);
  if (message.revokedAt) lines.push(`Deleted for everyone by the sender ${when(message.revokedAt)}; the firm's record keeps the content.`);
  for (const reaction of message.reactions)
    lines.push(`Reaction ${reaction.emoji} from ${formatNumber(reaction.from)} ${when(reaction.at)}`);
  return lines;
}
