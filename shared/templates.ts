// Firm-useful message bodies. They are sent as free text, not as provider template messages
// with registered names (server/decisions/0010-24-hour-window-and-approved-templates.md): outside
// the 24-hour window the provider may refuse them like any other free text.

export type TTemplate = { id: string; name: string; body: string };

export const WHATSAPP_TEMPLATES: readonly TTemplate[] = [
  {
    id: 'appointment-reminder',
    name: 'Appointment reminder',
    body: 'Hello {{client_name}}, this is {{firm_name}} reminding you of your appointment about {{case_reference}}. Please reply to confirm, or call us on {{firm_phone}} to rearrange.',
  },
  {
    id: 'document-request',
    name: 'Document request',
    body: 'Hello {{client_name}}, to move {{case_reference}} forward we need a few documents from you. You can reply here with photos or scans, or drop them at our office. Thank you, {{firm_name}}.',
  },
  {
    id: 'hearing-date',
    name: 'Hearing date',
    body: 'Hello {{client_name}}, the hearing for {{case_reference}} ({{case_title}}) has been listed. We will send you the date, time and venue details and what to bring. {{firm_name}}.',
  },
  {
    id: 'payment-reminder',
    name: 'Payment reminder',
    body: 'Hello {{client_name}}, a friendly reminder that an invoice for {{case_reference}} is now due. If you have already paid, thank you and please ignore this message. {{firm_name}}, {{firm_phone}}.',
  },
  {
    id: 'please-call-us',
    name: 'Please call us',
    body: 'Hello {{client_name}}, could you please call {{firm_name}} on {{firm_phone}} when convenient? We have an update on your matter.',
  },
  {
    id: 'message-received',
    name: 'Message received',
    body: 'Thank you {{client_name}}, we have received your message and a member of the team will reply shortly. {{firm_name}}.',
  },
];

export type TTemplateValues = Partial<Record<'client_name' | 'case_reference' | 'case_title' | 'firm_name' | 'firm_phone', string>>;

const FALLBACKS: Required<TTemplateValues> = {
  client_name: 'there',
  case_reference: 'your matter',
  case_title: 'your matter',
  firm_name: 'your solicitors',
  firm_phone: 'our office number',
};

/**
 * Fills `{{placeholders}}`; a missing value falls back to neutral words, never a raw `{{…}}`. An
 * aside in brackets, ` ({{case_title}})`, is left out without its value (not "your matter (your matter)").
 */
export function renderTemplate(body: string, values: TTemplateValues): string {
  const hasValue = (key: string) => !!values[key as keyof TTemplateValues]?.trim();
  const withAsides = body.replace(/ ?\(\{\{\s*(\w+)\s*\}\}\)/g, (aside, key: string) => (hasValue(key) ? aside : ''));
  return withAsides.replace(/\{\{\s*(\w+)\s*\}\}/g, (match, key: string) => {
    const value = values[key as keyof TTemplateValues]?.trim();
    if (value) return value;
    return key in FALLBACKS ? FALLBACKS[key as keyof TTemplateValues] : match;
  });
}
