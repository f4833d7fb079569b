import type { ProviderSimulator } from '../../server/dev/provider-sim/provider-simulator';
import { cloudPayload, postWebhook, sql } from './webhook';

/** Posts one inbound document or photo from `from`, dated now, as the provider would. */
export const deliverMedia = (appUrl: string, from: string, chatMsgId: string, mediaId: string, type: 'document' | 'image' = 'document') =>
  postWebhook(
    appUrl,
    cloudPayload({
      messages: [
        {
          from,
          id: chatMsgId,
          timestamp: String(Math.floor(Date.now() / 1000)),
          type,
          [type]:
            type === 'document'
              ? { id: mediaId, mime_type: 'application/pdf', filename: `${chatMsgId}.pdf` }
              : { id: mediaId, mime_type: 'image/jpeg' },
        },
      ],
    }),
  );

export type TDownloadedFile = { state: string; attempts: number; error: string | null; sha256: string | null; waiting: boolean };

/** The attachment of the message `chatMsgId`: its state, tries, last reason, and whether it waits for its next try. */
export const downloadedFileOf = async (databaseUrl: string, chatMsgId: string): Promise<TDownloadedFile> =>
  (
    await sql<TDownloadedFile>(
      databaseUrl,
      `SELECT a.state, a.attempts, a.error, a.sha256, coalesce(a.next_attempt_at > now(), false) AS waiting
       FROM attachments a JOIN communications c ON c.id = a.communication_id WHERE c.metadata->>'chat_msg_id' = $1`,
      [chatMsgId],
    )
  )[0]!;

const isDownloadOf = (mediaId: string) => (r: { path: string; query: string }) =>
  r.path === '/whatsapp_business/attachments/' && new URLSearchParams(r.query).get('mid') === mediaId;

/** How many times the app asked the simulator for the file's bytes. */
export const downloadsOf = (sim: ProviderSimulator, mediaId: string) => sim.requests.filter(isDownloadOf(mediaId)).length;

/** Where in the simulator's log the file's first download was asked for (-1: never). */
export const firstDownloadOf = (sim: ProviderSimulator, mediaId: string) => sim.requests.findIndex(isDownloadOf(mediaId));
