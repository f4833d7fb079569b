import { z } from 'zod';
import { READ_RECEIPT_MODES } from '../../shared/read-receipts';
import { ZCommunication } from '../../shared/communication-schema';
import { phoneInput } from '../../shared/phone-schema';
import { recordAuditEvent } from '../audit';
import { AppError } from '../core/errors';
import { CONFIGURED_NUMBER_ID, listFirmNumbers } from '../numbers';
import { ZRecordId } from '../trpc/record-id';
import { readSecurityPolicy, saveSecurityPolicy } from '../auth';
import type { TConfig } from '../core/config';
import { sendChatMessage, sendTemplateMessage, ZBody, ZTemplateChoice, type TSendDeps } from '../messaging';
import { DELIVERY_OUTCOMES, readWebhookSetup } from '../webhook';
import { authedProcedure, directorProcedure, enrolmentProcedure, router, stepUpDirectorProcedure } from '../trpc/init';
import { checkConnection, CONNECTION_STATUSES } from './connection-check';
import { readReadReceiptPolicy, saveReadReceiptPolicy } from './read-receipt-policy';
import { ZSecurityPolicy } from './security-policy-schema';

const ZReadReceiptPolicyView = z.object({
  mode: z.enum(READ_RECEIPT_MODES),
  updatedAt: z.date().nullable(),
  updatedBy: z.object({ id: z.number(), name: z.string() }).nullable(),
});

const ZSecurityPolicyView = ZSecurityPolicy.extend({
  updatedAt: z.date().nullable(),
  updatedBy: z.object({ id: z.number(), name: z.string() }).nullable(),
});

/** The settings it reports (the whole config: webhookStatus reads the webhook's), the provider it checks, and the send path for test messages. */
export type TSettingsRouterDeps = TSendDeps & { config: TConfig };

export function createSettingsRouter(deps: TSettingsRouterDeps) {
  return router({
    chat: authedProcedure
      .output(z.object({ firmPhone: z.string(), firmName: z.string(), webhookUrl: z.string(), mode: z.enum(['demo', 'live']) }))
      .query(() => ({
        firmPhone: deps.config.firmPhone,
        firmName: deps.config.firmName,
        webhookUrl: `${deps.config.siteUrl}/api/webhooks/chat`,
        mode: deps.config.mode,
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
      .query(() => readWebhookSetup(deps.config)),

    /**
     * Free text, or an approved template (a test number is usually outside the 24-hour window).
     * Marked as a test (`metadata.test`): to a client's number it lands on their file, and shows as one.
     */
    sendTest: authedProcedure
      .input(
        z.union([
          z.object({ to: phoneInput('Enter a number'), body: ZBody }),
          z.object({ to: phoneInput('Enter a number'), ...ZTemplateChoice }),
        ]),
      )
      .output(ZCommunication)
      .mutation(({ ctx, input }) =>
        'body' in input
          ? sendChatMessage(deps, { ...input, userId: ctx.user.id, reader: ctx.reader, test: true })
          : sendTemplateMessage(deps, { ...input, userId: ctx.user.id, reader: ctx.reader, test: true }),
      ),

    /** Directors only (server/decisions/0013-roles-enforced-by-the-server.md): enforced here, whatever the page shows. */
    checkConnection: directorProcedure
      /** `numberId`: one of the firm's numbers, checked with its own key (server/numbers/README.md "Several numbers"); absent: number 1. */
      .input(z.object({ numberId: ZRecordId.optional() }).optional())
      .output(z.object({ status: z.enum(CONNECTION_STATUSES), detail: z.string() }))
      .mutation(async ({ ctx, input }) => {
        const numberId = input?.numberId ?? CONFIGURED_NUMBER_ID;
        if (!(await listFirmNumbers()).some((n) => n.id === numberId))
          throw new AppError('NOT_FOUND', 'That number is not one of the firm’s.');
        const result = await checkConnection(deps.providerFor ? await deps.providerFor(numberId) : deps.provider);
        await recordAuditEvent({
          actor: { userId: ctx.user.id, ip: ctx.clientIp },
          action: 'settings.check_connection',
          subject: 'provider',
          detail: { status: result.status, ...(numberId !== CONFIGURED_NUMBER_ID ? { numberId } : {}) },
        });
        return result;
      }),

    /** The firm's sign-in policy: everyone may read what applies to them; directors change it. */
    security: enrolmentProcedure.output(ZSecurityPolicyView).query(() => readSecurityPolicy()),

    setSecurity: stepUpDirectorProcedure
      .input(ZSecurityPolicy)
      .output(ZSecurityPolicyView)
      .mutation(({ ctx, input }) => saveSecurityPolicy({ userId: ctx.user.id, ip: ctx.clientIp }, input)),

    /** Whose opening shows the client blue ticks (server/messaging/README.md "Read receipts"): directors read and set it. */
    readReceipts: directorProcedure.output(ZReadReceiptPolicyView).query(() => readReadReceiptPolicy(deps.config.readReceipts)),

    setReadReceipts: directorProcedure
      .input(z.object({ mode: z.enum(READ_RECEIPT_MODES, { message: 'Choose off, assignee or anyone' }) }))
      .output(ZReadReceiptPolicyView)
      .mutation(({ ctx, input }) => saveReadReceiptPolicy({ userId: ctx.user.id, ip: ctx.clientIp }, input.mode, deps.config.readReceipts)),
  });
}
