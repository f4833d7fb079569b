import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { StatusTicks } from '../../client/src/ui/status-ticks';

const render = (props: Parameters<typeof StatusTicks>[0]) => renderToStaticMarkup(<StatusTicks {...props} />);
const tickPaths = (html: string) => (html.match(/<path d="M[0-9.]+ [0-9.]+l/g) ?? []).length;

describe('the tick component', () => {
  it.each([
    ['pending', 'Sending'],
    ['sent', 'Sent'],
    ['delivered', 'Delivered'],
    ['read', 'Read'],
    ['failed', 'Failed'],
  ] as const)('%s has the text alternative "%s"', (status, label) => {
    expect(render({ status })).toContain(`aria-label="${label}"`);
  });

  it('draws one tick for sent, two for delivered and read, and none for pending', () => {
    expect(tickPaths(render({ status: 'sent' }))).toBe(1);
    expect(tickPaths(render({ status: 'delivered' }))).toBe(2);
    expect(tickPaths(render({ status: 'read' }))).toBe(2);
    expect(tickPaths(render({ status: 'pending' }))).toBe(0);
  });

  it('colours read blue and failed red, delivered stays grey', () => {
    expect(render({ status: 'read' })).toContain('ticks-read');
    expect(render({ status: 'failed' })).toContain('ticks-failed');
    expect(render({ status: 'delivered' })).not.toContain('ticks-read');
  });

  it('lists the receipt times in its tooltip, and the error for failed', () => {
    const html = render({
      status: 'read',
      receipts: [
        { status: 'sent', at: new Date('2026-11-21T10:00:00Z') },
        { status: 'delivered', at: new Date('2026-11-21T10:00:30Z') },
        { status: 'read', at: new Date('2026-11-21T10:09:00Z') },
      ],
    });
    expect(html).toMatch(/title="Sent [^"]+ · Delivered [^"]+ · Read [^"]+"/);
    expect(render({ status: 'failed', error: 'The number is not found at the provider.' })).toContain(
      'The number is not found at the provider.',
    );
  });
});
