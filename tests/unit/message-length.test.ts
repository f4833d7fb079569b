import { describe, expect, it } from 'vitest';
import { CAPTION_LIMIT, describeLength, TEXT_LIMIT } from '../../client/src/features/composer/message-length';
import { match } from '../support/matchers';

describe('the length of a message against the provider limit', () => {
  it('says nothing well under the limit', () => {
    expect(describeLength('x'.repeat(3799), TEXT_LIMIT)).toEqual({ state: 'quiet' });
  });

  it('counts down from 3,800 characters', () => {
    expect(describeLength('x'.repeat(3800), TEXT_LIMIT)).toEqual({ state: 'near', counter: '296 characters left', refusal: null });
    expect(describeLength('x'.repeat(3884), TEXT_LIMIT)).toMatchObject({ counter: '212 characters left' });
    expect(describeLength('x'.repeat(4095), TEXT_LIMIT)).toMatchObject({ counter: '1 character left' });
    expect(describeLength('x'.repeat(4096), TEXT_LIMIT)).toMatchObject({ state: 'near', counter: '0 characters left' });
  });

  it('refuses past 4,096 characters, saying by how much and what to do', () => {
    const over = describeLength('x'.repeat(4200), TEXT_LIMIT);
    expect(over).toEqual({
      state: 'over',
      counter: '104 characters over the limit',
      refusal: 'A message can be at most 4,096 characters. Shorten it, or send it as two messages.',
    });
  });

  it('counts what is sent: spaces and blank lines around the text are not', () => {
    expect(describeLength(`\n\n${'x'.repeat(4096)}   \n`, TEXT_LIMIT)).toMatchObject({ state: 'near' });
  });

  it('holds a caption to 1,024 characters', () => {
    expect(describeLength('x'.repeat(899), CAPTION_LIMIT).state).toBe('quiet');
    expect(describeLength('x'.repeat(1000), CAPTION_LIMIT)).toMatchObject({ state: 'near', counter: '24 characters left' });
    expect(describeLength('x'.repeat(1025), CAPTION_LIMIT)).toMatchObject({
      state: 'over',
      refusal: match.stringContaining('A caption can be at most 1,024 characters'),
    });
  });
});
