import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { MessageBubble } from '../../client/src/features/conversation/message-bubble';
import type { TThreadItem } from '../../client/src/lib/trpc';

const item: TThreadItem = {
  id: 12,
  type: 'chat',
  direction: 'outbound',
  subject: null,
  body: 'Your hearing is at ten',
  status: 'pending',
  error: null,
  attachments: [],
  sentBy: { id: 7, name: 'Sam Staff' },
  clientId: 1,
  caseId: null,
  peerPhone: '447700900123',
  firmNumberId: 1,
  metadata: {},
  providerTimestamp: null,
  readAt: null,
  createdAt: new Date('2026-11-24T10:00:00Z'),
  receipts: [],
  version: 1,
};
const render = (patch: Partial<TThreadItem>) =>
  renderToStaticMarkup(<MessageBubble item={{ ...item, ...patch }} speaker="You" onRetry={() => undefined} />);

describe('an outbound message whose provider answer was lost', () => {
  it('is shown as maybe not sent, with a Retry, not with the clock of a send in progress', () => {
    const html = render({ metadata: { outcome: 'unknown' } });
    expect(html).toContain('May not have been sent — the provider’s answer was lost');
    expect(html).toContain('aria-label="May not have been sent"');
    expect(html).not.toContain('aria-label="Sending"');
    expect(html).toContain('>Retry<');
    expect(html).toContain('data-outcome="unknown"');
  });

  it('once resent, points to the new copy instead of offering Retry again', () => {
    const html = render({ metadata: { outcome: 'unknown', resent_as: 13 } });
    expect(html).toContain('show the new copy');
    expect(html).not.toContain('>Retry<');
  });

  it('a send still in progress keeps its clock', () => {
    expect(render({})).toContain('aria-label="Sending"');
  });
});
