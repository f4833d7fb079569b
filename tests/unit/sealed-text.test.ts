import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openText, sealText } from '../../server/signing/sealed-text';

// What a firm number's key and secret are kept as (server/numbers/README.md "Several numbers"): only
// the key they were sealed under opens them, and a changed or shortened text opens nothing.
describe('sealed text', () => {
  const key = randomBytes(32);

  it('opens what it sealed, and nothing under another key', () => {
    const sealed = sealText(key, 'a provider key 0123');
    expect(sealed).not.toContain('a provider key');
    expect(openText(key, sealed)).toBe('a provider key 0123');
    expect(() => openText(randomBytes(32), sealed)).toThrow();
  });

  it('refuses a changed text and a shortened tag (GCM would otherwise check only what is left of it)', () => {
    const [iv, tag, body] = sealText(key, 'a webhook secret 0123').split('.') as [string, string, string];
    const flipped = `${iv}.${tag}.${body.slice(0, -1)}${body.endsWith('A') ? 'B' : 'A'}`;
    expect(() => openText(key, flipped)).toThrow();
    const shortTag = Buffer.from(tag, 'base64url').subarray(0, 4).toString('base64url');
    expect(() => openText(key, `${iv}.${shortTag}.${body}`)).toThrow('a sealed text carries a 16-byte tag');
  });
});
