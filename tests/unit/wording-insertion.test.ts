import { describe, expect, it } from 'vitest';
import { insertWording, locateWording, removeWording, replaceWording } from '../../client/src/features/composer/wording-insertion';

const WORDING = 'Hello Amelia, about your matter.';

describe('firm wording inserted into what was typed', () => {
  it('goes into an empty text as the whole text', () => {
    const { body, insertion, caret } = insertWording('', 0, WORDING, 'hearing-date');
    expect(body).toBe(WORDING);
    expect(caret).toBe(WORDING.length);
    expect(insertion).toMatchObject({ templateId: 'hearing-date', start: 0, lead: '', trail: '' });
  });

  it('keeps the typed text, on a line of its own after it when the cursor is at the end', () => {
    const { body, caret } = insertWording('Please note:', 12, WORDING, 'x');
    expect(body).toBe(`Please note:\n${WORDING}`);
    expect(caret).toBe(body.length);
  });

  it('goes in at the cursor between typed lines, never over them', () => {
    const { body } = insertWording('First line. Last line.', 11, WORDING, 'x');
    expect(body).toBe(`First line.\n${WORDING}\n Last line.`);
    expect(insertWording('Top\n', 4, WORDING, 'x').body).toBe(`Top\n${WORDING}`);
    expect(insertWording('Tail', -5, WORDING, 'x').body).toBe(`${WORDING}\nTail`); // a stray caret is clamped
    expect(insertWording('Tail', 99, WORDING, 'x').body).toBe(`Tail\n${WORDING}`);
  });

  it('follows new values while untouched, even after typing before and after it', () => {
    const first = insertWording('Note', 4, WORDING, 'x');
    const typed = `Dear all, ${first.body} Thanks.`;
    const replaced = replaceWording(typed, first.insertion, 'Hello Amelia, about HART-2026-002.');
    expect(replaced?.body).toBe('Dear all, Note\nHello Amelia, about HART-2026-002. Thanks.');
    expect(locateWording(replaced!.body, replaced!.insertion)).toBe(15);
  });

  it('stops following once its text is edited by hand', () => {
    const { body, insertion } = insertWording('', 0, WORDING, 'x');
    const edited = body.replace('your matter', 'the lease');
    expect(locateWording(edited, insertion)).toBeNull();
    expect(replaceWording(edited, insertion, 'Hello Amelia, about HART-2026-002.')).toBeNull();
    expect(removeWording(edited, insertion)).toBeNull();
  });

  it('undo takes out the wording and the line breaks it added, and leaves what was typed', () => {
    const between = insertWording('First line. Last line.', 11, WORDING, 'x');
    expect(removeWording(between.body, between.insertion)).toEqual({ body: 'First line. Last line.', caret: 11 });
    const after = insertWording('Please note:', 12, WORDING, 'x');
    const typedLater = `${after.body} Regards.`;
    expect(removeWording(typedLater, after.insertion)?.body).toBe('Please note: Regards.');
  });

  it('picks the occurrence nearest where it was put when the same wording appears twice', () => {
    const once = insertWording('', 0, WORDING, 'x');
    const twice = insertWording(once.body, once.body.length, WORDING, 'x');
    expect(locateWording(twice.body, twice.insertion)).toBe(WORDING.length + 1);
    expect(replaceWording(twice.body, twice.insertion, 'NEW')?.body).toBe(`${WORDING}\nNEW`);
  });
});
