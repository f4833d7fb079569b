import { describe, expect, it } from 'vitest';
import { renderTemplate, WHATSAPP_TEMPLATES } from '../../shared/templates';
import { match } from '../support/matchers';

describe('message templates', () => {
  it('include the firm-useful set', () => {
    expect(WHATSAPP_TEMPLATES.map((t) => t.id)).toEqual(
      match.arrayContaining(['appointment-reminder', 'document-request', 'hearing-date', 'payment-reminder', 'please-call-us']),
    );
  });

  it('fill placeholders from client, case and firm', () => {
    const body = renderTemplate('Hello {{client_name}}, about {{ case_reference }} — {{firm_name}}', {
      client_name: 'Amelia',
      case_reference: 'HART-1',
      firm_name: 'Ashdown & Vale',
    });
    expect(body).toBe('Hello Amelia, about HART-1 — Ashdown & Vale');
  });

  it('never leave a raw placeholder for a known field without a value', () => {
    for (const template of WHATSAPP_TEMPLATES) expect(renderTemplate(template.body, {})).not.toMatch(/\{\{/);
  });
});
