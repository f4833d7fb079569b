import type { z } from 'zod';
import type { TCommunication, TReplyButton } from '../../shared/communication';
import { AppError } from '../core/errors';
import { recordAndSend } from './record-and-send';
import type { TSendDeps } from './send-deps';
import { ZInteractiveBody, ZReplyButtons } from './send-inputs';
import { sendOnce } from './send-once';
import { resolveRecipient, type TRecipientInput } from './send-recipient';

// A question with quick-reply buttons (server/messaging/README.md "Quick-reply buttons"): sent as the provider's
// interactive message, recorded as a text that keeps its buttons. Free text's rules apply: outside
// the 24-hour window the provider refuses it as it refuses free text. The client's choice comes back
// as a button reply naming this message (`context_id`), which links it to the question.

export type TSendButtonsInput = TRecipientInput & { body: string; buttons: TReplyButton[] };

export async function sendButtonsMessage(deps: TSendDeps, input: TSendButtonsInput): Promise<TCommunication> {
  return sendOnce(input, (echo) => sendButtonsMessageOnce(deps, input, echo));
}

/** One send of a question (also a retry's, which carries no echo id). */
export async function sendButtonsMessageOnce(
  deps: TSendDeps,
  input: TSendButtonsInput,
  echo: { echo_id?: string },
): Promise<TCommunication> {
  // The router checked these already; a caller inside the server (a retry, a scheduled send) is held to the same rules.
  const body = checked(ZInteractiveBody, input.body, 'body');
  const buttons = checked(ZReplyButtons, input.buttons, 'buttons').map(({ id, title }) => ({ id, title }));
  const recipient = await resolveRecipient(deps, input);
  return recordAndSend(deps, recipient, {
    body,
    sentBy: input.userId ?? null,
    metadata: {
      buttons,
      ...(input.retryOf ? { retry_of: input.retryOf } : {}),
      ...(input.test ? { test: true } : {}),
      ...input.marks,
      ...echo,
    },
    attach: input.inRecordTransaction,
    send: (provider, to) => provider.sendButtons(to, { body, buttons }),
  });
}

function checked<T extends z.ZodType>(schema: T, value: unknown, field: string): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const messages = parsed.error.issues.map((issue) => issue.message);
  throw new AppError('INVALID_INPUT', `${messages[0]}.`, { [field]: messages });
}
