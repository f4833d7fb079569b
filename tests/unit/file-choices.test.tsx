import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { FilePicker } from '../../client/src/features/composer/file-picker';
import { describeRisk, riskOf } from '../../client/src/features/composer/file-risk';
import { acceptRisk, asDocument, canSendAsDocument, checkUploadSize, kindToSend } from '../../client/src/features/composer/upload-file';

const MB = 1024 * 1024;
const fileOf = (name: string, type: string, size = 10) => new File([new Uint8Array(size)], name, { type });

function renderPicker(file: File) {
  return renderToStaticMarkup(
    <FilePicker file={file} onChoose={() => undefined} onClear={() => undefined} progress={null} error={checkUploadSize(file)} />,
  );
}

describe('programs and web pages are sent only once the person has been warned', () => {
  it('names programs, scripts, web pages and SVG drawings by their extension or type', () => {
    for (const name of ['setup.exe', 'Setup.MSI', 'run.bat', 'run.cmd', 'tool.js', 'install.ps1', 'app.apk']) {
      expect(riskOf({ name, type: '' })).toBe('program');
    }
    for (const name of ['page.html', 'page.htm', 'page.xhtml']) expect(riskOf({ name, type: '' })).toBe('web page');
    expect(riskOf({ name: 'logo.svg', type: 'image/svg+xml' })).toBe('web image');
    expect(riskOf({ name: 'no-extension', type: 'text/html' })).toBe('web page');
    expect(riskOf({ name: 'letter.pdf', type: 'application/pdf' })).toBeNull();
    expect(riskOf({ name: 'photo.jpg', type: 'image/jpeg' })).toBeNull();
  });

  it('a program waits for "Send anyway": the sentence says what it is, and accepting it lets it be sent', () => {
    const setup = fileOf('setup.exe', 'application/x-msdownload');
    expect(describeRisk(setup)).toBe("setup.exe is a program: the client's phone may warn them or refuse it. Send anyway?");
    expect(checkUploadSize(setup)).toBe(describeRisk(setup));
    const html = renderPicker(setup);
    expect(html).toContain('setup.exe is a program: the client&#x27;s phone may warn them or refuse it. Send anyway?');
    expect(html).toContain('>Send anyway</button>');

    const accepted = acceptRisk(setup);
    expect(accepted).not.toBe(setup); // a new value: the composer sees the change and checks again
    expect(accepted.name).toBe('setup.exe');
    expect(checkUploadSize(accepted)).toBeNull();
    expect(renderPicker(accepted)).not.toContain('Send anyway');
  });
});

describe('a photo or video over its limit may go as a document', () => {
  it('a 6 MB photo is refused as a photo, with the offer; as a document it may be sent, and says so', () => {
    const photo = fileOf('scan.jpg', 'image/jpeg', 6 * MB);
    expect(checkUploadSize(photo)).toBe('A photo (JPEG or PNG) can be at most 5.0 MB. Nothing was uploaded.');
    expect(canSendAsDocument(photo)).toBe(true);
    expect(renderPicker(photo)).toContain('Send as a document instead');

    const document = asDocument(photo);
    expect(kindToSend(document)).toBe('document');
    expect(checkUploadSize(document)).toBeNull();
    expect(canSendAsDocument(document)).toBe(false);
    const html = renderPicker(document);
    expect(html).toContain('sent as a document, up to 100 MB');
    expect(html).not.toContain('Send as a document instead');
  });

  it('a 17 MB video gets the offer; a file that is a document already, or within its limit, does not', () => {
    expect(canSendAsDocument(fileOf('clip.mp4', 'video/mp4', 17 * MB))).toBe(true);
    expect(canSendAsDocument(fileOf('clip.mp4', 'video/mp4', 1 * MB))).toBe(false);
    expect(canSendAsDocument(fileOf('bundle.zip', 'application/zip', 6 * MB))).toBe(false);
  });

  it('a program over the document limit is warned about first, then refused with the limit', () => {
    const huge = acceptRisk(fileOf('setup.exe', 'application/x-msdownload', 100 * MB + 1));
    expect(checkUploadSize(huge)).toBe('A document can be at most 100 MB. Nothing was uploaded.');
    expect(renderPicker(huge)).not.toContain('Send as a document instead');
  });
});
