import { countParams } from '../provider';
import type { TProviderTemplate } from '../provider';

// Demo mode has no provider to list templates: this approved set stands in, so the whole flow
// (cold client → template → ticks) works without a key. Shaped like the provider's own listing.
const BODY = (text: string, examples: string[] = []) => ({
  type: 'BODY',
  text,
  ...(examples.length ? { example: { body_text: [examples] } } : {}),
});

/** A header that carries a file sent with the template (server/messaging/README.md "Sending messages", Approved templates). */
const HEADER = (format: 'DOCUMENT' | 'IMAGE' | 'VIDEO') => ({ type: 'HEADER', format });

const DEFINITIONS: { name: string; category: string; text: string; examples?: string[]; header?: 'DOCUMENT' | 'IMAGE' | 'VIDEO' }[] = [
  { name: 'hello_world', category: 'UTILITY', text: 'Hello World' },
  {
    name: 'appointment_reminder',
    category: 'UTILITY',
    text: 'Hello {{1}}, this is a reminder of your appointment with {{2}} on {{3}}. Reply here to confirm or to rearrange.',
    examples: ['Amelia', 'Ashdown & Vale Solicitors', 'Tuesday 3 March at 10:00'],
  },
  {
    name: 'document_request',
    category: 'UTILITY',
    text: 'Hello {{1}}, to move {{2}} forward we need some documents from you. Please reply to this message so we can tell you what to send.',
    examples: ['Amelia', 'HART-2026-001'],
  },
  {
    name: 'hearing_update',
    category: 'UTILITY',
    text: 'Hello {{1}}, there is an update about the hearing in {{2}}. Please reply to this message or call us when convenient.',
    examples: ['Amelia', 'HART-2026-001'],
  },
  {
    name: 'please_get_in_touch',
    category: 'UTILITY',
    text: 'Hello {{1}}, {{2}} would like to speak with you about your matter. Please reply to this message when convenient.',
    examples: ['Amelia', 'Ashdown & Vale Solicitors'],
  },
  {
    name: 'document_attached',
    category: 'UTILITY',
    header: 'DOCUMENT',
    text: 'Hello {{1}}, the attached document is about {{2}}. Please read it and reply here with any questions.',
    examples: ['Amelia', 'HART-2026-001'],
  },
];

export const BUILT_IN_TEMPLATES: TProviderTemplate[] = DEFINITIONS.map((d) => ({
  name: d.name,
  language: d.name === 'hello_world' ? 'en_US' : 'en_GB',
  status: 'APPROVED',
  category: d.category,
  body: d.text,
  paramCount: countParams(d.text),
  examples: d.examples ?? [],
  components: [...(d.header ? [HEADER(d.header)] : []), BODY(d.text, d.examples)],
}));
