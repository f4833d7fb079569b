import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// Data flows webhook → chat: the chat domain owns the types the webhook fills in and never
// reaches back into the webhook (issue 12, item 8).
const CHAT_DIR = path.resolve(import.meta.dirname, '../../server/chat');

describe('the chat domain', () => {
  it('imports nothing from server/webhook', () => {
    const offenders = readdirSync(CHAT_DIR)
      .filter((f) => f.endsWith('.ts'))
      .filter((f) => /from ['"]\.\.\/webhook\//.test(readFileSync(path.join(CHAT_DIR, f), 'utf8')));
    expect(offenders).toEqual([]);
  });
});
