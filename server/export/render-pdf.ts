import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Writable } from 'node:stream';
import { once } from 'node:events';
import { create as openFont } from 'fontkit';
import PDFDocument from 'pdfkit';
import type { TReceiptHistory } from '../../shared/communication';
import { formatNumber as formatStoredNumber } from '../core/phone-input';
import type { TExportHeader, TExportMessage } from './read-export';

// DejaVu Sans (free licence, in the dejavu-fonts-ttf package): Latin, Greek, Cyrillic, Hebrew,
// Arabic letters and many symbols, where PDF's built-in fonts know only Western European text.
const require = createRequire(import.meta.url);
const FONT_REGULAR = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf');
const FONT_BOLD = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf');
let fonts: { regular: Buffer; bold: Buffer; drawable: Set<number> } | null = null;
function loadFonts() {
  if (fonts) return fonts;
  const regular = readFileSync(FONT_REGULAR);
  return (fonts = { regular, bold: readFileSync(FONT_BOLD), drawable: new Set(openFont(regular).characterSet) });
}

/**
 * Text as the PDF can show it, nothing silently lost: a character the font has no glyph for (CJK,
 * emoji, a tab) is written as its code, `[U+1F44D]`, so it stays in the page and its text; more than
 * three combining marks on one letter are counted rather than stacked (each costs layout time); and a
 * run of 70 characters without a space (longer than a SHA-256) gets a zero-width break, so it wraps inside the margin
 * instead of being split letter by letter (slow) or running off the page.
 */
export function drawableText(text: string): string {
  const { drawable } = loadFonts();
  const marked = text
    .replace(/\r\n?/g, '\n')
    .replace(/(\p{M}{3})(\p{M}+)/gu, (_all, kept: string, more: string) => `${kept}[+${[...more].length} marks]`);
  let out = '';
  for (const char of marked) {
    const code = char.codePointAt(0)!;
    out += char === '\n' || drawable.has(code) ? char : `[U+${code.toString(16).toUpperCase().padStart(4, '0')}]`;
  }
  return out.replace(/[^\s\u200b]{70}(?=[^\s\u200b])/gu, '$&\u200b');
}

const MARGIN = 50;
const GREY = '#555555';
const DIRECTION_LABEL = { inbound: 'From the client', outbound: 'From the firm' } as const;

/** "2026-11-20 14:03:22 UTC": evidence names its time zone. */
export function formatUtc(iso: string | null): string {
  return iso ? `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC` : '—';
}

const formattedNumbers = new Map<string, string>();
/** Formatting is slow next to drawing; a chat has few numbers, so each is formatted once. */
function formatNumber(digits: string | null): string {
  if (!digits) return 'unknown number';
  let text = formattedNumbers.get(digits);
  if (text === undefined) {
    if (formattedNumbers.size >= 1_000) formattedNumbers.clear();
    formattedNumbers.set(digits, (text = formatStoredNumber(digits)));
  }
  return text;
}

function formatReceipts(receipts: TReceiptHistory): string {
  const parts = (['sent', 'delivered', 'read', 'failed'] as const)
    .filter((status) => receipts[status])
    .map((status) => {
      const receipt = receipts[status]!;
      const failure =
        status === 'failed' && receipt.code != null ? ` (code ${receipt.code}${receipt.details ? `: ${receipt.details}` : ''})` : '';
      return `${status} ${formatUtc(receipt.at)}${failure}`;
    });
  return parts.length ? parts.join(' · ') : 'none';
}

function describeSubject(subject: TExportHeader['subject']): string {
  const numbers = subject.numbers.map(formatNumber).join(', ') || 'no number on file';
  return subject.type === 'client'
    ? `Client ${subject.name} (no. ${subject.id}) · ${numbers}`
    : `Case ${subject.reference} "${subject.name}" (no. ${subject.id}) for ${subject.clientName} · ${numbers}`;
}

/** The lines under a message's text: ids, times, status, receipts and what happened to it since. */
function describeRecord(message: TExportMessage): string[] {
  if (message.internal) return [`Record ${message.id} · internal note, never sent · stored ${formatUtc(message.storedTime)}`];
  // The provider dates what it delivers to the firm; for what the firm sent, its times are the receipts.
  const providerTime =
    message.providerTime || message.direction !== 'outbound' ? ` · provider time ${formatUtc(message.providerTime)}` : '';
  const lines = [
    `Record ${message.id} · provider id ${message.chatMsgId ?? 'none'}${providerTime} · stored ${formatUtc(message.storedTime)}`,
  ];
  if (message.direction === 'outbound') {
    lines.push(
      `Status ${message.status ?? '—'} · receipts: ${formatReceipts(message.receipts)}${message.error ? ` · error: ${message.error}` : ''}`,
    );
  } else if (message.readByFirmAt) {
    lines.push(`First opened in Firm Chat ${formatUtc(message.readByFirmAt)}`);
  }
  for (const file of message.attachments) {
    const size = file.size == null ? 'size unknown' : `${file.size.toLocaleString('en-GB')} bytes`;
    lines.push(
      `Attachment: ${file.fileName ?? `${file.kind}, no file name`} · ${file.mimeType} · ${size} · ${file.state === 'stored' ? `sha256 ${file.sha256}` : `not stored (${file.state})`}`,
    );
  }
  if (message.truncated)
    lines.push(
      `Text cut to what is stored: the client sent ${message.truncated.length.toLocaleString('en-GB')} characters, sha256 ${message.truncated.sha256}`,
    );
  for (const edit of message.edits) lines.push(`Earlier text, replaced ${formatUtc(edit.at)}: ${edit.body}`);
  if (message.revokedAt)
    lines.push(`Deleted for everyone by the sender ${formatUtc(message.revokedAt)}; the firm's record keeps the content.`);
  for (const reaction of message.reactions)
    lines.push(`Reaction ${reaction.emoji} from ${formatNumber(reaction.from)} ${formatUtc(reaction.at)}`);
  return lines;
}

function describeSender(message: TExportMessage): string {
  if (message.internal) return `Internal note by ${message.sentBy?.name ?? 'a former colleague'} · not sent to the client`;
  if (message.direction === 'inbound') {
    return `${DIRECTION_LABEL.inbound} · ${formatNumber(message.peerPhone)}${message.contactName ? ` (profile name "${message.contactName}")` : ''}`;
  }
  const by = message.sentBy
    ? `sent by ${message.sentBy.name}`
    : message.fromFirmPhone
      ? "sent from the firm's phone"
      : 'sender not recorded';
  return `${DIRECTION_LABEL.outbound} · ${by} · to ${formatNumber(message.peerPhone)}`;
}

/**
 * pdfkit keeps the glyph layout of every distinct word it has drawn, for the life of the document:
 * ids, times and hashes are all distinct, so a 10,000-message export kept ~100 MB of them. Laying
 * words out afresh is 4× slower, so the cache stays and is emptied once per page of messages.
 * (`_fontFamilies` and `layoutCache` are pdfkit internals: if they change, memory grows as before.)
 */
function forgetWordLayouts(doc: PDFKit.PDFDocument): void {
  const families = (doc as unknown as { _fontFamilies?: Record<string, { layoutCache?: object }> })._fontFamilies ?? {};
  for (const font of Object.values(families)) if (font.layoutCache) font.layoutCache = Object.create(null) as object;
}

/**
 * The PDF export: a header naming firm, subject, period, who exported and when, then every message
 * with its record lines. Pages are written out as they fill (pdfkit without `bufferPages`), so the
 * document never sits in memory whole. CPU-bound: the server runs it in a worker (write-pdf-export.ts).
 */
export async function renderPdf(header: TExportHeader, pages: AsyncIterable<TExportMessage[]>, out: Writable): Promise<void> {
  const { regular, bold } = loadFonts();
  const title = header.subject.type === 'client' ? `Chat record: ${header.subject.name}` : `Chat record: case ${header.subject.reference}`;
  const doc = new PDFDocument({
    size: 'A4',
    margins: { top: MARGIN, bottom: MARGIN + 20, left: MARGIN, right: MARGIN },
    bufferPages: false,
    info: {
      Title: title,
      Author: header.firm,
      Subject: describeSubject(header.subject),
      Creator: 'Firm Chat',
      CreationDate: new Date(header.exportedAt),
    },
    // No built-in default font: a Buffer given here would be parsed again on every later font() call.
    font: null as unknown as string,
  });
  doc.registerFont('regular', regular);
  doc.registerFont('bold', bold);
  doc.font('regular');
  doc.pipe(out, { end: false });
  const ended = once(doc, 'end');

  let pageNumber = 0;
  const footer = () => {
    pageNumber += 1;
    const { x, y } = doc;
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0; // writing below the margin must not start another page
    doc
      .font('regular')
      .fontSize(7.5)
      .fillColor(GREY)
      .text(
        drawableText(
          `${header.firm} · ${title} · exported ${formatUtc(header.exportedAt)} by ${header.exportedBy.name} · page ${pageNumber}`,
        ),
        MARGIN,
        doc.page.height - MARGIN,
        { width: doc.page.width - 2 * MARGIN, align: 'center', lineBreak: false },
      );
    doc.page.margins.bottom = bottom;
    doc.x = x;
    doc.y = y;
  };
  footer();
  doc.on('pageAdded', footer);

  doc.font('bold').fontSize(16).fillColor('black').text(drawableText(title));
  doc.moveDown(0.4);
  const headerLines: [string, string][] = [
    ['Firm', header.firm],
    ['Subject', describeSubject(header.subject)],
    ['Period', header.period ? `${formatUtc(header.period.from)} to ${formatUtc(header.period.to)}` : 'no messages'],
    [
      'Messages',
      header.notOnCase
        ? `${header.count}: those filed on this case. ${header.notOnCase} other chat message${header.notOnCase === 1 ? '' : 's'} with ${header.subject.clientName} ${header.notOnCase === 1 ? 'is' : 'are'} not filed on it and not in this record (export the client's chat for every message).`
        : String(header.count),
    ],
    ...(header.internalNotes
      ? [
          [
            'Internal notes',
            `${header.internalNotes}, among the messages and marked as such: the firm's own, never sent to the client`,
          ] as [string, string],
        ]
      : []),
    ['Exported by', `${header.exportedBy.name} (${header.exportedBy.email})`],
    ['Exported at', formatUtc(header.exportedAt)],
    ['Audit trail head', header.auditHead.id === null ? 'empty' : `event #${header.auditHead.id}, SHA-256 ${header.auditHead.hash}`],
  ];
  for (const [label, value] of headerLines) {
    doc.font('bold').fontSize(10).text(`${label}: `, { continued: true }).font('regular').text(drawableText(value));
  }
  doc.moveDown(0.4);
  doc
    .font('regular')
    .fontSize(8)
    .fillColor(GREY)
    .text(
      'Times are UTC. "Provider time" is the messaging provider\'s timestamp; "stored" is when this system recorded the message. ' +
        'Characters this font cannot draw (emoji, Chinese, Japanese and Korean script, tabs) are written as their Unicode code, such as [U+1F44D] for a thumbs-up; ' +
        'long runs without spaces wrap at the margin. The JSON export of the same record holds the exact text. ' +
        "The file's SHA-256 is recorded in the firm's audit trail under this export.",
    );
  doc.moveDown(0.8);

  const width = doc.page.width - 2 * MARGIN;
  for await (const page of pages) {
    forgetWordLayouts(doc);
    for (const message of page) {
      const at = message.providerTime ?? message.storedTime;
      doc
        .font('bold')
        .fontSize(9.5)
        .fillColor('black')
        .text(
          drawableText(
            `${formatUtc(at)} · ${describeSender(message)}${message.forwarded ? ' · forwarded' : ''}${message.replyTo ? ` · reply to ${message.replyTo}` : ''}`,
          ),
          MARGIN,
          doc.y,
          { width },
        );
      doc
        .font('regular')
        .fontSize(10)
        .fillColor('black')
        .text(drawableText(message.body) || `(${message.kind}, no text)`, { width });
      doc
        .font('regular')
        .fontSize(7.5)
        .fillColor(GREY)
        .text(drawableText(describeRecord(message).join('\n')), { width });
      doc.moveDown(0.7);
    }
  }
  doc.end();
  await ended;
}
