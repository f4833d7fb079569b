import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { formatDuration, ReplyWindow, windowTimeLeft } from '../../client/src/features/conversation/reply-window';

const now = new Date('2026-11-21T12:00:00Z');
const hoursAgo = (h: number) => new Date(now.getTime() - h * 3_600_000);

describe('the 24-hour window indicator', () => {
  it('shows the time left since the last inbound message', () => {
    expect(windowTimeLeft(hoursAgo(3.5), now)).toBe(20.5 * 3_600_000);
    expect(formatDuration(20.5 * 3_600_000)).toBe('20 h 30 min');
    const html = renderToStaticMarkup(<ReplyWindow lastInboundAt={hoursAgo(3.5)} now={now} />);
    expect(html).toContain('Reply window open: 20 h 30 min left');
  });

  it('warns that free text may be rejected once the window has closed', () => {
    expect(windowTimeLeft(hoursAgo(24), now)).toBeNull();
    const html = renderToStaticMarkup(<ReplyWindow lastInboundAt={hoursAgo(30)} now={now} />);
    expect(html).toContain('Outside the 24-hour window');
    expect(html).toContain('template');
  });

  it('says so when the contact has never written', () => {
    expect(renderToStaticMarkup(<ReplyWindow lastInboundAt={null} now={now} />)).toContain('No message from this contact yet');
  });

  it('counts the last minute as a minute, not zero', () => {
    expect(formatDuration(59_000)).toBe('1 min');
  });
});
