import { describe, expect, it } from 'vitest';
import { fillWording } from '../../client/src/features/composer/wording-insertion';

// The firm's wording's placeholders, filled in the composer (server/wording/README.md "Firm wording").

describe('fillWording', () => {
  it('fills the client’s first name, full name and the sender’s name, and a template’s values', () => {
    const filled = fillWording('Hello {{client.firstName}} ({{client.name}}), {{me.name}} at {{firm_name}} about {{case_reference}}.', {
      clientFirstName: 'Amelia',
      clientName: 'Amelia Hart',
      myName: 'Sam Staff',
      firm_name: 'Ashdown & Vale',
      case_reference: 'HART-2026-001',
    });
    expect(filled).toEqual({ text: 'Hello Amelia (Amelia Hart), Sam Staff at Ashdown & Vale about HART-2026-001.', missing: [] });
  });

  it('an unlinked number: no stand-in name, the space before the comma goes, and the name is listed as missing', () => {
    const filled = fillWording('Hello {{client.firstName}}, thank you. {{me.name}}', { myName: 'Sam Staff' });
    expect(filled).toEqual({ text: 'Hello, thank you. Sam Staff', missing: ['client.firstName'] });
  });

  it('an erased client’s name is never used', () => {
    const filled = fillWording('Hello {{client.firstName}}, from {{me.name}}.', {
      clientFirstName: 'Erased',
      clientName: 'Erased client',
      client_name: 'Erased',
      myName: 'Sam Staff',
    });
    expect(filled.text).toBe('Hello, from Sam Staff.');
    expect(filled.missing).toEqual(['client.firstName']);
  });
});
