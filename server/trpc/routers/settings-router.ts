import { z } from 'zod';
import type { TCommunication } from '../../../shared/communication';
import { sendChatMessage, sendTemplateMessage } from '../../chat/send-message';
import { recordAuditEvent } from '../../audit/record-audit-event';
import { checkConnection, CONNECTION_STATUSES } from '../../services/connection-check';
import { ZBody, ZTemplateChoice } from './chat-router';
import { authedProcedure, directorProcedure, router } from '../init';

export const settingsRouter = router({
  chat: authedProcedure
    .output(z.object({ firmPhone: z.string(), firmName: z.string(), webhookUrl: z.string(), mode: z.enum(['demo', 'live']) }))
    .query(({ ctx }) => ({
      firmPhone: ctx.deps.config.firmPhone,
      firmName: ctx.deps.config.firmName,
      webhookUrl: `${ctx.deps.config.siteUrl}/api/webhooks/chat`,
      mode: ctx.deps.config.mode,
    })),

  /** Free text, or an approved template (a test number is usually outside the 24-hour window). */
  sendTest: authedProcedure
    .input(
      z.union([
        z.object({ to: z.string().trim().min(1, 'Enter a number').max(40), body: ZBody }),
        z.object({ to: z.string().trim().min(1, 'Enter a number').max(40), ...ZTemplateChoice }),
      ]),
    )
    .mutation(({ ctx, input }): Promise<TCommunication> =>
      'body' in input ? sendChatMessage(ctx.deps, { ...input, userId: ctx.user.id }) : sendTemplateMessage(ctx.deps, { ...input, userId: ctx.user.id }),
    ),

  /** Directors only (SPEC §1.8): enforced here, whatever the page shows. */
  checkConnection: directorProcedure
    .output(z.object({ status: z.enum(CONNECTION_STATUSES), detail: z.string() }))
    .mutation(async ({ ctx }) => {
      const result = await checkConnection(ctx.deps.provider);
      await recordAuditEvent(ctx.deps.sequelize, { actor: { userId: ctx.user.id, ip: ctx.clientIp }, action: 'settings.check_connection', subject: 'provider', detail: { status: result.status } });
      return result;
    }),
});
