import type { TCommunication } from '../../shared/communication';
import { assertRecordVisible } from '../access';
import { EchoedSend, findEchoedSend } from './record-and-send';
import type { TRecipientInput } from './send-recipient';

/**
 * Runs a send once per echo id: a queued send the browser tries again (its tab closed mid-request,
 * the answer lost) gets the first record back, whatever became of it, and nothing is sent again.
 */
export async function sendOnce(
  input: TRecipientInput,
  send: (metadata: { echo_id?: string }) => Promise<TCommunication>,
): Promise<TCommunication> {
  if (!input.echoId) return send({});
  const earlier = await findEchoedSend(input.userId, input.echoId);
  // Walled since (server/access/README.md "Ethical walls"): the sender sees the first record only while they may.
  if (earlier && input.reader) await assertRecordVisible(input.reader, earlier.id);
  if (earlier) return earlier;
  return send({ echo_id: input.echoId }).catch((error: unknown) => {
    if (error instanceof EchoedSend) return error.record;
    throw error;
  });
}
