import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { threadPath } from '../../lib/trpc';
import { formatWallTime } from '../../../../shared/zoned-time';
import { escapeCancels } from '../../lib/escape-cancels';
import { hasEditableText, whatOf, type TScheduledSend } from './scheduled-send';
import { SendLaterPicker } from './send-later-picker';
import type { useScheduledActions } from './use-scheduled-actions';
import { withZone, type TFirmZone } from './use-firm-time-zone';

export type TScheduledActions = ReturnType<typeof useScheduledActions>;

type TProps = {
  item: TScheduledSend;
  zone: TFirmZone;
  me: { id: number; role: 'director' | 'staff' };
  actions: TScheduledActions;
  /** On the person's own list: each names its conversation, as a link to it. */
  showClient?: boolean;
  /** In the conversation: a text not sent goes back into the message box, to be edited and sent by hand. */
  onEditAndSend?: (item: TScheduledSend) => void;
};

type TMode = 'view' | 'edit' | 'reschedule' | 'cancel';

/**
 * One scheduled send: when (on the firm's clock), who scheduled it, what it says; Edit (its text),
 * Reschedule, Cancel (asked twice) for its author or a director. One not sent shows why in red:
 * what to do then is the person's (put the text back in the message box, or dismiss it).
 */
export function ScheduledItem({ item, zone, me, actions, showClient, onEditAndSend }: TProps) {
  const [mode, setMode] = useState<TMode>('view');
  const [refusal, setRefusal] = useState<string | null>(null);
  const actionsRef = useRef<HTMLDivElement>(null);
  const confirmRef = useRef<HTMLButtonElement>(null);
  // Asked to confirm: the focus goes to the question's button (the one pressed is gone).
  useEffect(() => {
    if (mode === 'cancel') confirmRef.current?.focus();
  }, [mode]);
  const headingId = useId();
  const what = whatOf(item);
  const when = withZone(formatWallTime(item.sendAt, zone.timeZone), zone);
  const mine = item.author.id === me.id;
  const mayChange = mine || me.role === 'director';
  const notSent = item.state === 'not_sent';
  // A form closed: the focus goes back to the row's actions, not to the page's start.
  const backToView = () => {
    setMode('view');
    requestAnimationFrame(() => actionsRef.current?.querySelector<HTMLButtonElement>('button')?.focus());
  };
  const cancelIt = async () => {
    const refused = await actions.cancel(item.id, notSent ? 'Dismissed.' : undefined);
    setRefusal(refused);
    if (refused) setMode('view');
  };
  return (
    <li className={`scheduled-item${notSent ? ' not-sent' : ''}`} aria-labelledby={headingId} data-scheduled-id={item.id}>
      <div className="scheduled-head" id={headingId}>
        <strong className="scheduled-when">
          <time dateTime={item.sendAt.toISOString()}>{notSent ? `Was due ${when}` : when}</time>
        </strong>
        {showClient && (
          <>
            {' · to '}
            <Link href={threadPath({ clientId: item.clientId, peerPhone: null })}>{item.clientName}</Link>
          </>
        )}
        <span className="scheduled-author"> · by {mine ? 'you' : item.author.name}</span>
      </div>
      {what.title && <div className="scheduled-title">{what.title}</div>}
      {mode === 'edit' ? (
        <EditText
          initial={item.body ?? ''}
          caption={item.kind === 'file'}
          onSave={async (body) => {
            const refused = await actions.edit(item.id, body);
            if (refused === null) backToView();
            return refused;
          }}
          onCancel={backToView}
        />
      ) : (
        what.text && <p className="scheduled-text">{what.text}</p>
      )}
      {item.unlessReplied && !notSent && <p className="scheduled-unless">Won’t be sent if they reply first</p>}
      {notSent && (
        <p className="scheduled-reason" role="note">
          <strong>Not sent:</strong> {item.reason ?? 'it could not go.'}
        </p>
      )}
      {mode === 'reschedule' && (
        <SendLaterPicker
          zone={zone}
          title="Reschedule"
          action="Reschedule"
          initial={item.sendAt > new Date() ? item.sendAt : undefined}
          onPick={async (at) => {
            const refused = await actions.reschedule(item.id, at, zone);
            if (refused === null) backToView();
            return refused;
          }}
          onCancel={backToView}
        />
      )}
      {refusal && mode === 'view' && (
        <p className="form-error" role="alert">
          {refusal}
        </p>
      )}
      {mayChange && mode !== 'edit' && mode !== 'reschedule' && (
        <div className="scheduled-actions" ref={actionsRef}>
          {mode === 'cancel' ? (
            <span className="confirm-inline" role="group" aria-label="Cancel this scheduled message?">
              {notSent ? 'Dismiss it?' : 'Cancel it? It will not be sent.'}
              <button
                ref={confirmRef}
                type="button"
                className="button small danger"
                onClick={() => void cancelIt()}
                disabled={actions.pending}
              >
                {notSent ? 'Dismiss' : 'Cancel message'}
              </button>
              <button type="button" className="button small ghost" onClick={backToView}>
                Keep
              </button>
            </span>
          ) : notSent ? (
            <>
              {onEditAndSend && item.kind === 'text' && (
                <button
                  type="button"
                  className="button small"
                  onClick={() => {
                    // The text lives in the message box from now on: the one not sent leaves the list.
                    onEditAndSend(item);
                    void actions.cancel(item.id, 'The text is in the message box: edit it, then send it.');
                  }}
                >
                  Edit and send
                </button>
              )}
              <button type="button" className="button small ghost" onClick={() => setMode('cancel')}>
                Dismiss
              </button>
            </>
          ) : (
            <>
              {hasEditableText(item) && (
                <button type="button" className="button small ghost" onClick={() => setMode('edit')}>
                  Edit
                </button>
              )}
              <button type="button" className="button small ghost" onClick={() => setMode('reschedule')}>
                Reschedule
              </button>
              <button type="button" className="button small ghost" onClick={() => setMode('cancel')}>
                Cancel
              </button>
            </>
          )}
        </div>
      )}
    </li>
  );
}

/** The text (or a file's caption) in place, with Save and Cancel; the server's refusal beside it, the text kept. */
function EditText({
  initial,
  caption,
  onSave,
  onCancel,
}: {
  initial: string;
  caption: boolean;
  onSave: (body: string) => Promise<string | null>;
  onCancel: () => void;
}) {
  const [text, setText] = useState(initial);
  const [saving, setSaving] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  const box = useRef<HTMLTextAreaElement>(null);
  const boxId = useId();
  const refusalId = useId();
  useEffect(() => box.current?.focus(), []);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (saving) return;
    if (!caption && !text.trim()) {
      setRefusal('Write the message, or cancel the scheduled send instead.');
      return;
    }
    setSaving(true);
    setRefusal(null);
    void onSave(text.trim()).then((refused) => {
      setSaving(false);
      setRefusal(refused);
    });
  };
  return (
    <form className="scheduled-edit" aria-label="Edit the scheduled message" onSubmit={submit} onKeyDown={escapeCancels(onCancel)}>
      <label htmlFor={boxId} className="visually-hidden">
        {caption ? 'Caption' : 'Scheduled message'}
      </label>
      <textarea
        ref={box}
        id={boxId}
        rows={3}
        value={text}
        onChange={(e) => setText(e.target.value)}
        aria-invalid={refusal ? true : undefined}
        aria-describedby={refusal ? refusalId : undefined}
      />
      <span className="button-row">
        <button type="submit" className="button small primary">
          {saving ? 'Saving…' : 'Save'}
        </button>
        <button type="button" className="button small ghost" onClick={onCancel}>
          Cancel
        </button>
      </span>
      {refusal && (
        <p id={refusalId} className="form-error" role="alert">
          {refusal}
        </p>
      )}
    </form>
  );
}
