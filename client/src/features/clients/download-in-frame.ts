import { readHttpErrorMessage } from '../../lib/http-error-message';
import { answerWantsStepUp } from '../../lib/step-up-link';

export type TFrameDownload = {
  /** Whether the frame is still waiting for the server (neither refused nor removed). */
  isAlive: () => boolean;
  remove: () => void;
};

/**
 * Asks for a file the browser's own download manager saves — streamed to disk, never held by the
 * page, however large (a court bundle can be gigabytes: server/export/README.md "Evidence exports") — by navigating a
 * hidden frame to `url`. One request: a file answer becomes a download and the frame stays blank; an
 * error answer loads in the frame instead, and `onRefused` is called with the server's sentence, or
 * null when the frame may not be read (the server's `frame-ancestors 'none'` blanks an answer loaded
 * in a frame); `stepUp` says the server asks for a recent second-factor proof first (a restricted
 * matter's export: server/auth/README.md "Step-up and the firm's policy"). A plain `<a download>` would lose the sentence: the browser's download list says only
 * "Failed".
 *
 * The frame hangs from the document, outside React: going to another page while the server is still
 * preparing the file must not cancel it (removing the frame before the answer arrives would). A file
 * answer fires no `load`, so the frame stays until `remove()` is called, once the caller knows the
 * download has begun (a court bundle: its ticket's cookie, `export-ticket.ts`).
 */
export function downloadInFrame(url: string, onRefused: (message: string | null, stepUp: boolean) => void): TFrameDownload {
  const frame = document.createElement('iframe');
  frame.hidden = true;
  frame.tabIndex = -1;
  frame.title = 'Download';
  frame.setAttribute('aria-hidden', 'true');
  document.body.append(frame);
  // Listened to only now: the blank document a new frame starts with has loaded already.
  frame.addEventListener(
    'load',
    () => {
      const refusal = readRefusal(frame);
      onRefused(readHttpErrorMessage(refusal), answerWantsStepUp(refusal));
      frame.remove();
    },
    { once: true },
  );
  frame.src = url;
  return { isAlive: () => frame.isConnected, remove: () => frame.remove() };
}

/** The error answer shown in the frame, parsed, when the frame may be read and holds JSON. */
function readRefusal(frame: HTMLIFrameElement): unknown {
  try {
    const text = frame.contentDocument?.body?.textContent;
    return text ? (JSON.parse(text) as unknown) : null;
  } catch {
    return null; // another origin's document, or not JSON
  }
}
