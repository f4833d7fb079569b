import { applyOptOutChanges, optOutChangeOfText } from '../opt-outs';
import { applyMessageUpdates, applyReceipts, type InboundBatcher, type TStoredInbound } from '../messaging';
import { applyTemplateStatusUpdates } from '../templates';
import type { TParsedPayload } from './parse-payload';

/**
 * The ingest step of a verified, parsed delivery: every statement idempotent (a retried delivery
 * stores nothing twice) and each NOTIFYs live views itself, on commit (server/ARCHITECTURE.md,
 * "Inbound"). Returns what was stored now and how many receipts changed a record.
 */
export async function ingestDelivery(
  payload: TParsedPayload,
  batcher: InboundBatcher,
  onFilesPending?: () => void,
): Promise<{ stored: TStoredInbound[]; changed: number }> {
  // A number whose preferences say STOP or START in this delivery gets no out-of-hours reply to its
  // messages: the reply is decided as they are stored, before the opt-outs below are applied.
  const asking = new Set(payload.preferences.map((p) => p.peerPhone));
  const messages = asking.size
    ? payload.messages.map((m) => (asking.has(m.peerPhone) ? { ...m, askedToStopOrStart: true as const } : m))
    : payload.messages;
  const stored = await batcher.submit(messages);
  if (payload.updates.length) await applyMessageUpdates(payload.updates);
  const changed = payload.receipts.length ? await applyReceipts(payload.receipts) : 0;
  if (payload.templateUpdates.length) await applyTemplateStatusUpdates(payload.templateUpdates);
  // Only a text stored just now asks anything: a retried delivery of an old START must not
  // undo a STOP sent since (server/messaging/README.md "Sending messages", Opt-outs).
  const storedNow = new Set(stored.map((row) => row.chatMsgId));
  const optOuts = [
    ...payload.preferences.map((p) => ({ ...p, source: p.optedOut ? 'provider: stop' : 'provider: resume' })),
    ...payload.messages
      .filter((m) => m.direction === 'inbound' && (m.kind === 'text' || m.kind === 'button') && storedNow.has(m.chatMsgId))
      .map(optOutChangeOfText)
      .filter((c) => c !== null),
  ];
  if (optOuts.length) await applyOptOutChanges(optOuts);
  if (stored.some((row) => row.hasAttachment)) onFilesPending?.();
  return { stored, changed };
}
