import type { Ref } from 'react';
import type { TThreadRef } from '../../lib/trpc';
import { Composer, type TSendActions } from '../composer';
import { ComposeModeToggle, NoteComposer } from '../ownership';
import { ReplyWindow, WINDOW_MS } from './reply-window';
import type { TReplyTarget } from './use-reply-target';

/** An internal note being written instead of a reply; its text is kept while the reply is written. */
type TNoteDraft = { on: boolean; setOn: (on: boolean) => void; text: string; setText: (text: string) => void };

/**
 * Under a conversation's messages: a reply to the client (the 24-hour window, then the composer —
 * free text or an approved template) or an internal note for colleagues.
 */
export function ThreadCompose({
  threadRef,
  measureRef,
  note,
  reply,
  mode,
  onModeChange,
  clientId,
  clientName,
  sends,
  file,
  onFileChange,
  proposedCaseId,
  onAdded,
}: {
  threadRef: TThreadRef;
  /** Measures the area, so that notices (toasts) sit above it rather than over the message box. */
  measureRef: Ref<HTMLDivElement>;
  note: TNoteDraft;
  reply: TReplyTarget;
  mode: 'template' | 'text';
  onModeChange: (mode: 'template' | 'text') => void;
  clientId: number | null;
  clientName: string | null;
  sends: TSendActions;
  file: File | null;
  onFileChange: (file: File | null) => void;
  proposedCaseId: number | undefined;
  /** A note was added: the list goes to its end, where it is. */
  onAdded: () => void;
}) {
  return (
    <div className={`thread-compose${note.on ? ' note-mode' : ''}`} ref={measureRef}>
      <ComposeModeToggle note={note.on} onChange={note.setOn} />
      {note.on ? (
        <NoteComposer
          threadRef={threadRef}
          text={note.text}
          onTextChange={note.setText}
          proposedCaseId={proposedCaseId}
          onAdded={onAdded}
        />
      ) : (
        <>
          <ReplyWindow
            lastInboundAt={reply.lastInboundAt}
            through={reply.fromLabel}
            importedHistory={reply.importedHistory}
            action={
              mode === 'text'
                ? {
                    label: reply.windowOpen ? 'Approved template…' : 'Send an approved template',
                    onClick: () => onModeChange('template'),
                  }
                : null
            }
          />
          <Composer
            threadRef={threadRef}
            clientName={clientName}
            {...sends}
            file={file}
            onFileChange={onFileChange}
            windowOpen={reply.windowOpen}
            windowClosesAt={reply.lastInboundAt ? new Date(reply.lastInboundAt.getTime() + WINDOW_MS) : null}
            mode={mode}
            onModeChange={onModeChange}
            proposedCaseId={proposedCaseId}
            recipient={
              reply.to
                ? {
                    value: reply.to,
                    options: reply.numbers,
                    onChange: reply.choose,
                    from: reply.from !== null ? { value: reply.from, options: reply.fromOptions, onChange: reply.chooseFrom } : null,
                    // Not the client's own main number (a linked number, a second phone): say so.
                    note:
                      clientId !== null && reply.primary && reply.to !== reply.primary
                        ? `not ${clientName ?? 'the client'}'s main number`
                        : null,
                  }
                : null
            }
          />
        </>
      )}
    </div>
  );
}
