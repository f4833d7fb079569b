import { describe, expect, it } from 'vitest';
import { renderTemplate, WHATSAPP_TEMPLATES } from '../../shared/templates';

const hearing = WHATSAPP_TEMPLATES.find((t) => t.id === 'hearing-date')!.body;

describe('firm wording with an aside in brackets', () => {
  it('without a case the aside is left out, not "your matter (your matter)"', () => {
    expect(renderTemplate(hearing, { client_name: 'Amelia' })).toContain('the hearing for your matter has been listed.');
  });

  it('with a case the aside names it', () => {
    const text = renderTemplate(hearing, {
      client_name: 'Amelia',
      case_reference: 'HART-2026-002',
      case_title: 'Will and lasting power of attorney',
    });
    expect(text).toContain('the hearing for HART-2026-002 (Will and lasting power of attorney) has been listed.');
  });
});
