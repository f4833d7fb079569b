import { describe, expect, it } from 'vitest';
import { mergeParams, prefillParams } from '../../client/src/features/composer/template-composer';

const HEARING = 'Hello {{1}}, there is an update about the hearing in {{2}}. Please reply to this message or call us when convenient.';

describe('approved template values', () => {
  it('a case chosen after the template fills its value (prefill follows the context)', () => {
    const before = prefillParams(HEARING, 2, { firstName: 'Amelia', caseReference: null, firmName: 'Ashdown & Vale' });
    expect(before).toEqual(['Amelia', '']);
    const after = prefillParams(HEARING, 2, { firstName: 'Amelia', caseReference: 'HART-2026-002', firmName: 'Ashdown & Vale' });
    expect(mergeParams(after, undefined)).toEqual(['Amelia', 'HART-2026-002']);
  });

  it('a value typed by hand stays; the others still follow the context', () => {
    const prefilled = prefillParams(HEARING, 2, { firstName: 'Amelia', caseReference: 'HART-2026-002', firmName: null });
    expect(mergeParams(prefilled, { 0: 'Mrs Hart' })).toEqual(['Mrs Hart', 'HART-2026-002']);
    expect(mergeParams(prefilled, { 1: '' })).toEqual(['Amelia', '']); // cleared on purpose stays cleared
  });
});

describe('approved template prefill', () => {
  const context = { firstName: 'Amelia', caseReference: 'HART-2026-001', firmName: 'Ashdown & Vale' };

  it('fills the case where the wording moves it forward ("to move {{2}} forward")', () => {
    const body = 'Hello {{1}}, to move {{2}} forward we need some documents from you.';
    expect(prefillParams(body, 2, context)).toEqual(['Amelia', 'HART-2026-001']);
  });

  it('fills the firm after "with", and leaves a date for a person', () => {
    const body = 'Hello {{1}}, this is a reminder of your appointment with {{2}} on {{3}}.';
    expect(prefillParams(body, 3, context)).toEqual(['Amelia', 'Ashdown & Vale', '']);
  });

  it('matches whole words only: "within {{1}}" is not a case', () => {
    expect(prefillParams('Please reply within {{1}}.', 1, context)).toEqual(['']);
  });
});

describe('contextOf: which blank a template value fills', () => {
  it('quotes the words around it, other blanks as …', async () => {
    const { contextOf } = await import('../../client/src/features/composer/template-composer');
    expect(contextOf('Hello {{1}}, your appointment with {{2}} is on {{3}}. Reply to confirm.', 3)).toBe(
      '“…with … is on ___. Reply to confirm.”',
    );
    expect(contextOf('{{1}} wrote to us about the lease today', 1)).toBe('“___ wrote to us about…”');
    expect(contextOf('No blanks', 1)).toBe('');
  });
});
