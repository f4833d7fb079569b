import { QueryTypes, UniqueConstraintError } from 'sequelize';
import { actorOf, recordAuditEvent } from '../audit';
import { resolveRecipient } from '../messaging';
import { db } from '../core/db/db';
import { AppError } from '../core/errors';
import type { TConfig } from '../core/config';
import type { TReader } from '../core/visibility';
import { announceScheduledChange } from './announce-scheduled-change';
import { checkScheduledBody, checkSendAt, type TScheduleInput, type TScheduledTemplate } from './scheduled-inputs';
import { A_FILE_OF_KIND, checkScheduledTemplate } from './scheduled-template';
import { ALREADY_SCHEDULED, assertUploadMayBeScheduled } from './scheduled-upload';
import { assertMayGoUnlessReplied } from './unless-replied';

export type TScheduledKind = 'text' | 'template' | 'file';

type TWhat =
  | { kind: 'text'; body: string }
  | { kind: 'file'; body: string; attachmentId: number }
  | { kind: 'template'; template: TScheduledTemplate };

const ONE_AT_A_TIME = 'Schedule a text, a file or a template: one at a time.';

/** Which of a text, a file (with its caption) or a template the input is: exactly one. */
function chooseWhat(input: TScheduleInput): TWhat {
  if (input.template !== undefined) {
    if (input.body !== undefined || input.attachmentId !== undefined)
      throw new AppError('INVALID_INPUT', ONE_AT_A_TIME, { template: [ONE_AT_A_TIME] });
    return { kind: 'template', template: input.template };
  }
  if (input.attachmentId !== undefined)
    return { kind: 'file', body: checkScheduledBody(input.body, true), attachmentId: input.attachmentId };
  return { kind: 'text', body: checkScheduledBody(input.body, false) };
}

/**
 * Schedules a text, a file or an approved template to a client's conversation at `sendAt`
 * (server/messaging/README.md "Scheduled sends"). Everything a send now would refuse is refused now: the walls, the
 * number, an opt-out, the case, the file, the template, and a text that could never go (it waits
 * for no reply past the window). Then the row waits in the queue that the worker sends from
 * (send-due-scheduled.ts); it is audited `chat.schedule`.
 */
export async function scheduleSend(
  deps: { config: Pick<TConfig, 'defaultCountry'>; now: () => Date },
  reader: TReader,
  input: TScheduleInput,
): Promise<{ id: number }> {
  const sendAt = checkSendAt(input.sendAt, deps.now());
  const what = chooseWhat(input);
  // Decided now as a send now decides it, and kept: nothing goes to a number other than the one shown.
  const recipient = await resolveRecipient(deps, {
    clientId: input.clientId,
    to: input.to,
    caseId: input.caseId,
    fromNumberId: input.fromNumberId,
    reader,
  });
  const clientId = recipient.clientId!;
  let template: TScheduledTemplate | null = null;
  let attachmentId: number | null = null;
  if (what.kind === 'file') {
    await assertUploadMayBeScheduled(reader.id, what.attachmentId);
    attachmentId = what.attachmentId;
  } else if (what.kind === 'template') {
    const checked = await checkScheduledTemplate(what.template, recipient.firmNumberId);
    template = checked.template;
    if (template.header) {
      const file = await assertUploadMayBeScheduled(reader.id, template.header.attachmentId, 'header');
      if (file.kind !== checked.headerKind) {
        const wanted = A_FILE_OF_KIND[checked.headerKind!]!;
        throw new AppError(
          'INVALID_INPUT',
          `The template "${template.name}" needs ${wanted} in its header, not ${A_FILE_OF_KIND[file.kind]}.`,
          {
            header: [`Attach ${wanted}.`],
          },
        );
      }
      attachmentId = template.header.attachmentId;
    }
  }
  const unlessReplied = input.unlessReplied ?? false;
  await assertMayGoUnlessReplied({ kind: what.kind, unlessReplied, digits: recipient.digits, sendAt });
  const body = what.kind === 'template' ? null : what.body || null;
  return db()
    .transaction(async (transaction) => {
      const [row] = await db().query<{ id: number }>(
        `INSERT INTO scheduled_sends (kind, created_by, client_id, case_id, to_digits, body, template, attachment_id, send_at, unless_replied, firm_number_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10, $11) RETURNING id`,
        {
          bind: [
            what.kind,
            reader.id,
            clientId,
            recipient.caseId,
            recipient.digits,
            body,
            template ? JSON.stringify(template) : null,
            attachmentId,
            sendAt,
            unlessReplied,
            recipient.firmNumberId,
          ],
          type: QueryTypes.SELECT,
          transaction,
        },
      );
      const id = Number(row!.id);
      await recordAuditEvent(
        {
          actor: actorOf(reader),
          action: 'chat.schedule',
          subject: `client:${clientId}`,
          detail: {
            scheduledSendId: id,
            kind: what.kind,
            sendAt: sendAt.toISOString(),
            ...(recipient.caseId !== null ? { caseId: recipient.caseId } : {}),
            ...(attachmentId !== null ? { attachmentId } : {}),
            ...(template ? { template: template.name } : {}),
            ...(unlessReplied ? { unlessReplied } : {}),
          },
        },
        transaction,
      );
      await announceScheduledChange(transaction);
      return { id };
    })
    .catch((error: unknown) => {
      // The same upload scheduled twice at once: the unique index lets one in.
      if (error instanceof UniqueConstraintError) throw new AppError('CONFLICT', ALREADY_SCHEDULED);
      throw error;
    });
}
