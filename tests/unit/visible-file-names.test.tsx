import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { DocumentsTable } from '../../client/src/features/clients/documents-list';
import { FilePicker } from '../../client/src/features/composer/file-picker';
import { AttachmentView } from '../../client/src/features/conversation/attachment-view';
import { ReplyQuote } from '../../client/src/features/conversation/reply-quote';
import type { TAttachment } from '../../shared/communication';

// A file's name is the sender's choice: "Ref \u202Efdp.exe" must read as it is, with the override
// shown by its code, not as "Ref exe.pdf" (client/README.md "A tour of the screens").
const NAME = 'Ref \u202Efdp.exe';
const SHOWN = 'Ref [U+202E]fdp.exe';
const file: TAttachment = {
  id: 5,
  kind: 'document',
  mimeType: 'application/pdf',
  fileName: NAME,
  size: 1200,
  state: 'stored',
  error: null,
  nextAttemptAt: null,
};

describe('file names with characters that turn text around', () => {
  it('in the conversation: the document card, its download label, and a file still downloading', () => {
    for (const attachment of [file, { ...file, state: 'pending' as const }, { ...file, kind: 'image' as const, mimeType: 'image/png' }]) {
      const html = renderToStaticMarkup(<AttachmentView attachment={attachment} outbound={false} />);
      expect(html, attachment.state).toContain(SHOWN);
      expect(html, attachment.state).not.toContain('\u202E');
    }
  });

  it('in the Documents list: the name, its title and the download link', () => {
    const html = renderToStaticMarkup(
      <DocumentsTable
        items={[
          { ...file, communicationId: 1, direction: 'inbound', createdAt: new Date('2026-03-02T10:00:00Z'), caseId: null, clientId: 1 },
        ]}
      />,
    );
    expect(html).toContain(`>${SHOWN}</td>`);
    expect(html).toContain(`title="${SHOWN}"`);
    expect(html).toContain(`aria-label="Download ${SHOWN}"`);
    expect(html).not.toContain('\u202E');
  });

  it('in a reply quoting the file, and in the composer holding it', () => {
    const quote = renderToStaticMarkup(
      <ReplyQuote quoted={{ id: 1, body: '', direction: 'inbound', kind: 'document', fileName: NAME }} onShow={() => undefined} />,
    );
    const picker = renderToStaticMarkup(
      <FilePicker
        file={new File(['x'], NAME, { type: 'application/pdf' })}
        onChoose={() => undefined}
        onClear={() => undefined}
        progress={null}
        error={null}
      />,
    );
    for (const html of [quote, picker]) {
      expect(html).toContain(SHOWN);
      expect(html).not.toContain('\u202E');
    }
  });

  it('a name without such characters is shown as it was sent', () => {
    const html = renderToStaticMarkup(<AttachmentView attachment={{ ...file, fileName: 'Café – lease (v2).pdf' }} outbound={false} />);
    expect(html).toContain('Café – lease (v2).pdf');
  });
});
