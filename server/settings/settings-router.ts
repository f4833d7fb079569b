import { z } from 'zod';
import type { TCommunication } from '../../shared/communication';
import { recordAuditEvent } from '../audit';
import { sendChatMessage, sendTemplateMessage, ZBody, ZTemplateChoice } from '../messaging';
import { DELIVERY_OUTCOMES, readWebhookSetup } from '../webhook';
import { authedProcedure, directorProcedure, router } from '../trpc/init';
import { checkConnection, CONNECTION_STATUSES } from './connection-check';

export const settingsRouter = router({
  chat: authedProcedure
    .output(z.object({ firmPhone: z.string(), firmName: z.string(), webhookUrl: z.string(), mode: z.enum(['demo', 'live']) }))
    .query(({ ctx }) => ({
      firmPhone: ctx.deps.config.firmPhone,
      firmName: ctx.deps.config.firmName,
      webhookUrl: `${ctx.deps.config.siteUrl}/api/webhooks/chat`,
      mode: ctx.deps.config.mode,
    })),

  /**
   * What a director needs to register the webhook at the provider: the header or signature it
   * must carry, whether the secret and verify token are set (never their values), when a delivery
   * last arrived and how it was answered, and why the site URL may be out of the provider's reach.
   */
  webhookStatus: directorProcedure
    .output(
      z.object({
        webhookUrl: z.string(),
        secretHeader: z.string(),
        signatureHeaders: z.array(z.string()),
        secretConfigured: z.boolean(),
        verifyTokenConfigured: z.boolean(),
        unauthenticatedAllowed: z.boolean(),
        siteUrlWarnings: z.array(z.string()),
        lastDelivery: z.object({ at: z.date(), outcome: z.enum(DELIVERY_OUTCOMES), httpStatus: z.number().int() }).nullable(),
        lastAcceptedAt: z.date().nullable(),
      }),
    )
    .query(({ ctx }) => readWebhookSetup(ctx.deps.config)),

  /**
   * Free text, or an approved template (a test number is usually outside the 24-hour window).
   * Marked as a test (`metadata.test`): to a client's number it lands on their file, and shows as one.
   */
  sendTest: authedProcedure
    .input(
      z.union([
        z.object({ to: z.string().trim().min(1, 'Enter a number').max(40), body: ZBody }),
        z.object({ to: z.string().trim().min(1, 'Enter a number').max(40), ...ZTemplateChoice }),
      ]),
    )
    .mutation(({ ctx, input }): Promise<TCommunication> =>
      'body' in input
        ? sendChatMessage(ctx.deps, { ...input, userId: ctx.user.id, reader: ctx.reader, test: true })
        : sendTemplateMessage(ctx.deps, { ...input, userId: ctx.user.id, reader: ctx.reader, test: true }),
    ),

  /** Directors only (server/decisions/0013-roles-enforced-by-the-server.md): enforced here, whatever the page shows. */
  checkConnection: directorProcedure
    .output(z.object({ status: z.enum(CONNECTION_STATUSES), detail: z.string() }))
    .mutation(async ({ ctx }) => {
      const result = await checkConnection(ctx.deps.provider);
      await recordAuditEvent({
        actor: { userId: ctx.user.id, ip: ctx.clientIp },
        action: 'settings.check_connection',
        subject: 'provider',
        detail: { status: result.status },
      });
      return result;
    }),
});
