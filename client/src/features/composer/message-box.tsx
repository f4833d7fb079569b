import type { ClipboardEvent, KeyboardEvent, RefObject } from 'react';
import { useCoarsePointer } from '../../lib/use-coarse-pointer';
import { composerHint, sendsOnEnter } from './enter-to-send';
import type { TLengthState } from './message-length';

/**
 * The message box (or a file's caption): on a desktop Enter sends (Shift+Enter adds a line), on a
 * touch device Enter adds a line and the button sends; an image pasted into it (a screenshot) is
 * attached. No maxLength: a long paste is kept whole and refused with the reason, never cut short.
 */
export function MessageBox({
  textareaRef,
  value,
  caption,
  length,
  lengthId,
  onType,
  onEnter,
  onPasteFile,
}: {
  textareaRef: RefObject<HTMLTextAreaElement | null>;
  value: string;
  /** The text goes with a file, as its caption. */
  caption: boolean;
  length: TLengthState;
  /** The id of the length's counter under the box, which describes it while shown. */
  lengthId: string;
  onType: (text: string) => void;
  onEnter: () => void;
  onPasteFile: (file: File) => void;
}) {
  const touch = useCoarsePointer();
  const onPaste = (event: ClipboardEvent<HTMLTextAreaElement>) => {
    const pasted = [...event.clipboardData.files][0];
    if (!pasted) return;
    event.preventDefault();
    onPasteFile(pasted.name ? pasted : new File([pasted], 'pasted-image.png', { type: pasted.type }));
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (sendsOnEnter({ key: event.key, shiftKey: event.shiftKey, isComposing: event.nativeEvent.isComposing }, touch)) {
      event.preventDefault();
      onEnter();
    }
  };
  return (
    <>
      <label className="visually-hidden" htmlFor="composer-text">
        {caption ? 'Caption' : 'Message'}
      </label>
      <textarea
        ref={textareaRef}
        id="composer-text"
        rows={1}
        placeholder={composerHint({ touch, caption })}
        enterKeyHint={touch ? 'enter' : 'send'}
        value={value}
        onChange={(e) => onType(e.target.value)}
        onKeyDown={onKeyDown}
        onPaste={onPaste}
        aria-invalid={length.state === 'over' || undefined}
        aria-describedby={length.state === 'quiet' ? undefined : lengthId}
      />
    </>
  );
}
