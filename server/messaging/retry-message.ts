import type { TCommunication } from '../../shared/communication';
import { Attachment, Communication } from '../core/db/models/index';
import { AppError } from '../core/errors';
import { assertRecordVisible } from '../access';
import type { TReader } from '../core/visibility';
import type { TSendDeps } from './send-deps';
import type { TRecipientInput } from './send-recipient';
import { sendChatMessage, sendFileMessage, sendTemplateMessage } from './send-message';
import { ALREADY_RESENT } from './record-and-send';

export const MAY_HAVE_REACHED_THEM =
  'It may have reached them already: the provider’s answer to this message was lost. Check with them, then confirm to send it again.';

/**
 * Resends a failed record (text, template or file) as a new attempt, once; the failed one stays in
 * the thread. A record of unknown outcome may already have gone: resending it needs `confirm`.
 */
export async function retryChatMessage(deps: TSendDeps, id: number, reader?: TReader, confirm = false): Promise<TCommunication> {
  if (reader) await assertRecordVisible(reader, id);
  const userId = reader?.id;
  const failed = await Communication.findByPk(id);
  if (!failed || failed.type !== 'chat' || failed.direction !== 'outbound') throw new AppError('NOT_FOUND', 'Message not found.');
  const unknownOutcome = failed.status === 'pending' && failed.metadata.outcome === 'unknown';
  if (failed.status !== 'failed' && !unknownOutcome) throw new AppError('CONFLICT', 'Only a failed message can be retried.');
  if (failed.metadata.resent_as !== undefined) throw new AppError('CONFLICT', ALREADY_RESENT);
  if (unknownOutcome && !confirm) throw new AppError('CONFLICT', MAY_HAVE_REACHED_THEM);
  // An adopted id's failure may be another message's: the send itself may have gone (decision 0014).
  if (failed.status === 'failed' && failed.metadata.reconciled === true && !confirm) throw new AppError('CONFLICT', MAY_HAVE_REACHED_THEM);
  if (!failed.peerPhone) throw new AppError('INVALID_INPUT', 'This message has no recipient number.');
  // The same numbers as the failed attempt (theirs, and the firm's it went from), on the same file.
  const recipient: TRecipientInput = {
    ...(failed.clientId !== null ? { clientId: failed.clientId } : {}),
    to: failed.peerPhone,
    fromNumberId: failed.firmNumberId,
    ...(failed.caseId !== null && failed.clientId !== null ? { caseId: failed.caseId } : {}),
    retryOf: failed.id,
    userId,
    reader,
    test: failed.metadata.test,
  };
  const template = failed.metadata.template;
  if (template) return sendTemplateMessage(deps, { ...recipient, ...template });
  const [file] = await Attachment.findAll({ where: { communicationId: failed.id }, attributes: ['id'], order: [['id', 'ASC']], limit: 1 });
  if (file) return sendFileMessage(deps, recipient, file.id, failed.body, true);
  return sendChatMessage(deps, { ...recipient, body: failed.body });
}
