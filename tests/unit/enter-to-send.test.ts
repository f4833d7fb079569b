import { describe, expect, it } from 'vitest';
import { composerHint, sendsOnEnter } from '../../client/src/features/composer/enter-to-send';

const key = (k: string, shiftKey = false, isComposing = false) => ({ key: k, shiftKey, isComposing });

describe('what Enter does in the composer', () => {
  it('on a desktop Enter sends; Shift+Enter and Enter while composing a character do not', () => {
    expect(sendsOnEnter(key('Enter'), false)).toBe(true);
    expect(sendsOnEnter(key('Enter', true), false)).toBe(false);
    expect(sendsOnEnter(key('Enter', false, true), false)).toBe(false);
    expect(sendsOnEnter(key('a'), false)).toBe(false);
  });

  it('on a touch device Enter starts a new line (the button sends)', () => {
    expect(sendsOnEnter(key('Enter'), true)).toBe(false);
  });

  it('the hint says what Enter does on each', () => {
    expect(composerHint({ touch: false, caption: false })).toBe('Write a message — Enter to send, Shift+Enter for a new line');
    expect(composerHint({ touch: true, caption: false })).toBe('Write a message');
    expect(composerHint({ touch: true, caption: true })).not.toMatch(/Enter/);
    expect(composerHint({ touch: false, caption: true })).toMatch(/Enter to send the file/);
  });
});
