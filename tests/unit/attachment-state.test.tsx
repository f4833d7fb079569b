import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { AttachmentView } from '../../client/src/features/conversation/attachment-view';
import type { TAttachment } from '../../shared/communication';

const file: TAttachment = {
  id: 5,
  kind: 'document',
  mimeType: 'application/pdf',
  fileName: 'Bundle.pdf',
  size: null,
  state: 'pending',
  error: null,
  nextAttemptAt: null,
};
const render = (attachment: TAttachment) => renderToStaticMarkup(<AttachmentView attachment={attachment} outbound={false} />);

describe('a file not downloaded (yet)', () => {
  it('says it is downloading while its first try runs', () => {
    expect(render(file)).toContain('Downloading Bundle.pdf…');
  });

  it('after a failed try: says why and that it will be tried again, not "Downloading…"', () => {
    const html = render({
      ...file,
      error: "The file did not match the provider's checksum.",
      nextAttemptAt: new Date('2026-11-24T10:05:00Z'),
    });
    expect(html).not.toContain('Downloading Bundle.pdf…');
    expect(html).toContain('checksum');
    expect(html).toMatch(/It will be tried again at [^<]+\./);
  });

  it('given up: says failed, with the reason', () => {
    const html = render({ ...file, state: 'failed', error: 'Gave up after 5 tries.' });
    expect(html).toContain('Failed:');
    expect(html).toContain('Gave up after 5 tries.');
  });
});
