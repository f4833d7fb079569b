import { WINDOW_CLOSED_PREFIX } from '../../shared/provider-messages';

// The provider's error codes that ask something specific of the person sending (server/messaging/README.md "Sending
// messages"; server/decisions/0010-24-hour-window-and-approved-templates.md), on a send answer or
// on a `failed` receipt alike. Unknown codes keep the provider's words.

/** The 24-hour customer-service window has closed: on-premise 470, cloud 131047. */
export const WINDOW_CLOSED_CODES: readonly number[] = [470, 131047];

/** Stands for the client's name in a message made before the record's client is known (receipts). */
export const CLIENT_NAME_SLOT = '{{client}}';

export function messageForProviderCode(code: number | null | undefined, who: string): string | null {
  if (code == null) return null;
  if (WINDOW_CLOSED_CODES.includes(code)) return `${WINDOW_CLOSED_PREFIX} ${who} last wrote: send an approved template.`;
  switch (code) {
    case 132000:
      return 'The number of values does not match the template approved at the provider: refresh the templates and fill every field.';
    case 132001:
      return 'This template does not exist at the provider in that language: refresh the templates, or choose another language or template.';
    case 131026:
      return `This number cannot receive chat messages (it may not use the app, or ${who} has not accepted its terms): contact them another way.`;
    case 131056:
      return 'Too many messages have been sent to this number in a short time: wait a few minutes before sending again.';
    default:
      return null;
  }
}
