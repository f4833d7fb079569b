import { describe, expect, it } from 'vitest';
import { optOutChangeOfText } from '../../server/opt-outs/opt-out-keywords';

// A STOP is read as a person reads it: the ways phones and people write the word, not only the
// exact ASCII letters; a sentence that merely contains it is not one.
const changeOf = (body: string) => optOutChangeOfText({ peerPhone: '447700900123', body, providerTimestamp: null })?.optedOut ?? null;

describe('opt-out keywords', () => {
  it.each([
    'STOP',
    ' stop ',
    'Stop!',
    'STOP.',
    '"STOP"',
    'S T O P',
    '\u200bSTOP\u2060',
    '\uff33\uff34\uff2f\uff30',
    'Unsubscribe',
    'Stop promotions',
  ])('%j stops', (body) => expect(changeOf(body)).toBe(true));

  it.each(['START', 'start.', 'S t a r t'])('%j resumes', (body) => expect(changeOf(body)).toBe(false));

  it.each(['please stop', 'stop it', "don't stop", 'STOPPED', 'starting', ''])('%j is not a keyword', (body) =>
    expect(changeOf(body)).toBeNull(),
  );
});
