import { useId } from 'react';
import { usePhoneFormatter } from '../../lib/format';
import type { TThreadRef } from '../../lib/trpc';
import { ButtonsTool } from './buttons-tool';
import { FilePicker } from './file-picker';
import type { TCaseChoice } from './use-case-choice';
import type { useComposerFile } from './use-composer-file';
import type { TFirmWording } from './use-firm-wording';

/**
 * The number a message goes to: always shown, a choice when the conversation has several; and the
 * firm's number it goes from, a choice when the firm has several.
 */
export type TRecipient = {
  value: string;
  options: string[];
  onChange: (digits: string) => void;
  note?: string | null;
  from?: { value: number; options: { id: number; label: string }[]; onChange: (id: number) => void } | null;
};

/**
 * Above the message box: the number it goes to, firm wording, the case, a question with buttons
 * (a client's conversation), and the file to send.
 */
export function ComposerTools({
  threadRef,
  recipient,
  mode,
  wording,
  filing,
  file,
  attachment,
}: {
  recipient: TRecipient | null;
  mode: 'template' | 'text';
  wording: TFirmWording;
  /** The case choice, for a client's conversation (null for an unlinked number). */
  filing: TCaseChoice | null;
  file: File | null;
  attachment: ReturnType<typeof useComposerFile>;
  /** The conversation: a client's may be sent a question with buttons. */
  threadRef?: TThreadRef;
}) {
  const formatNumber = usePhoneFormatter();
  const clientId = threadRef && 'clientId' in threadRef ? threadRef.clientId : null;
  const caseNoteId = useId();
  return (
    <div className="composer-tools">
      {recipient &&
        (recipient.options.length > 1 ? (
          <label className="compact-field">
            <span>To</span>
            <select value={recipient.value} onChange={(e) => recipient.onChange(e.target.value)} aria-label="Send to number">
              {recipient.options.map((digits) => (
                <option key={digits} value={digits}>
                  {formatNumber(digits)}
                </option>
              ))}
            </select>
          </label>
        ) : (
          <span className="compact-field" data-testid="send-to">
            To <strong>{formatNumber(recipient.value)}</strong>
          </span>
        ))}
      {recipient?.note && <span className="recipient-note">{recipient.note}</span>}
      {recipient?.from && recipient.from.options.length > 1 && (
        <label className="compact-field">
          <span>From</span>
          <select
            value={recipient.from.value}
            onChange={(e) => recipient.from?.onChange(Number(e.target.value))}
            aria-label="Send from the firm's number"
          >
            {recipient.from.options.map((n) => (
              <option key={n.id} value={n.id}>
                {n.label}
              </option>
            ))}
          </select>
        </label>
      )}
      {mode === 'text' && (
        <span className="wording-picker">
          <label className="compact-field">
            <span>Wording</span>
            <select
              value={wording.wordingId}
              onChange={(e) => wording.setWordingId(e.target.value)}
              onFocus={wording.refresh}
              aria-label="Firm wording"
            >
              <option value="">Choose firm wording…</option>
              {wording.list?.map((w) => (
                <option key={w.id} value={String(w.id)}>
                  {w.title}
                </option>
              ))}
            </select>
          </label>
          <button
            type="button"
            className="button small ghost"
            onClick={wording.insertChosen}
            disabled={!wording.wordingId}
            aria-label="Insert wording"
          >
            Insert
          </button>
        </span>
      )}
      {filing && (
        <label className="compact-field case-field">
          <span>Case</span>
          <select
            value={filing.caseId ?? ''}
            onChange={(e) => filing.setCaseId(e.target.value ? Number(e.target.value) : undefined)}
            aria-label="File on case"
            aria-describedby={filing.isProposed ? caseNoteId : undefined}
          >
            <option value="">No case</option>
            {filing.cases?.map((c) => (
              <option key={c.id} value={c.id}>
                {c.reference} — {c.title}
                {c.status === 'closed' ? ' (closed)' : ''}
              </option>
            ))}
          </select>
          {filing.isProposed && (
            <span className="case-note" id={caseNoteId}>
              as the last messages
            </span>
          )}
        </label>
      )}
      {filing && filing.caseId !== undefined && (
        <label className="compact-field case-pin" title="Keep this case for the next messages too">
          <input
            type="checkbox"
            checked={filing.pinned}
            onChange={(e) => filing.setPinned(e.target.checked)}
            aria-label="Keep for next messages"
          />
          <span>Keep</span>
        </label>
      )}
      {mode === 'text' && clientId !== null && (
        <ButtonsTool clientId={clientId} to={recipient?.value ?? null} caseId={filing?.caseId} onSent={() => filing?.noteSent()} />
      )}
      {mode === 'text' && (
        <FilePicker
          file={file}
          onChoose={attachment.choose}
          onClear={() => attachment.choose(null)}
          progress={attachment.progress}
          error={attachment.error}
        />
      )}
    </div>
  );
}
