import { useState, type RefObject } from 'react';
import { useToast } from '../../ui/toasts';
import { useFirmTimeZone, useScheduledActions, windowWarning } from '../scheduling';
import type { TRecipient } from './composer-tools';
import type { TTemplateChoice } from './template-composer';
import { uploadFile } from './upload-file';
import type { useComposerFile } from './use-composer-file';

type TComposerContent = {
  clientId: number | null;
  clientName: string | null;
  recipient: TRecipient | null;
  caseId: number | undefined;
  /** When the reply number's 24-hour window closes (null: it never opened): what a scheduled text is checked against. */
  windowClosesAt: Date | null;
  body: string;
  file: File | null;
  attachment: ReturnType<typeof useComposerFile>;
  /** A file uploading, or the text over its limit: nothing is scheduled (the reason is shown already). */
  blocked: boolean;
  /** Clears what was sent; `only`: the text only while it is still this. */
  clearSent: (only?: string) => void;
  textarea: RefObject<HTMLTextAreaElement | null>;
};

/**
 * The composer's "Send later" (server/messaging/README.md "Scheduled sends"): what is in the message box (the file with
 * its caption, else the text) scheduled for a time on the firm's clock, and a template's send turned
 * into scheduling it once a time was chosen under the template form.
 */
export function useSendLater(content: TComposerContent) {
  const { clientId, clientName, recipient, caseId, windowClosesAt, body, file, attachment, blocked, clearSent, textarea } = content;
  const toast = useToast();
  const firmZone = useFirmTimeZone();
  const zone = firmZone.zone;
  const scheduling = useScheduledActions();
  // "Pick a date and time…" open (text and files); for a template, the time its Send will schedule it for.
  const [picking, setPicking] = useState(false);
  const [templateAt, setTemplateAt] = useState<Date | null>(null);
  const [schedulingFile, setSchedulingFile] = useState(false);
  const fileNote = attachment.note;

  /**
   * Schedules what is in the composer (the file with its caption, else the text) for `sendAt`;
   * cleared as after a send once the server took it. Returns the server's refusal (said in a notice
   * too, and in the picker when it asked), or null.
   */
  const scheduleAt = async (sendAt: Date): Promise<string | null> => {
    if (clientId === null || !zone) return null;
    if (blocked || scheduling.pending) return null;
    const target = { clientId, to: recipient?.value, caseId, sendAt };
    const window = { closesAt: windowClosesAt, name: clientName ?? 'This number' };
    if (file) {
      let refused: string | null = null;
      setSchedulingFile(true);
      const done = await attachment
        .send(file, async (chosen, onProgress) => {
          const uploaded = await uploadFile(chosen, onProgress).catch((error: Error) => error);
          if (uploaded instanceof Error) return { ok: false, error: (refused = uploaded.message) };
          refused = await scheduling.schedule({ ...target, body: body.trim(), attachmentId: uploaded.attachmentId }, zone, window);
          return refused === null ? { ok: true } : { ok: false, error: refused };
        })
        .finally(() => setSchedulingFile(false));
      if (done) clearSent();
      return refused;
    }
    if (fileNote) return null; // a caption whose file is not here: never scheduled alone (said beside it)
    const text = body.trim();
    if (!text) return null;
    const refused = await scheduling.schedule({ ...target, body: text }, zone, window);
    // Cleared as after a send — unless more was typed while the server answered: that stays.
    if (refused === null) clearSent(text);
    return refused;
  };

  return {
    zone,
    zoneError: firmZone.error,
    /** The 24-hour window's warning for text or a file due at `at`, shown while the time is chosen. */
    warningFor: (at: Date) => (zone ? windowWarning(at, { closesAt: windowClosesAt, name: clientName ?? 'This number' }, zone) : null),
    pending: scheduling.pending,
    replyOption: scheduling.replyOption,
    picking,
    setPicking,
    /** The time a template's Send schedules it for (null: it sends now). */
    templateAt,
    setTemplateAt,
    /** The file is being uploaded to be scheduled (not sent). */
    schedulingFile,
    scheduleAt,
    /** A preset's refusal is said in a notice (a file's, beside the file); the picker says its own. */
    scheduleFromMenu: (sendAt: Date) => {
      const withFile = file !== null;
      void scheduleAt(sendAt).then((refused) => {
        if (refused && !withFile) toast('error', refused);
        textarea.current?.focus();
      });
    },
    /** A template's Send: scheduled for the time chosen, if one was; else `sendNow`. True once it went. */
    sendTemplate: async (choice: TTemplateChoice, sendNow: () => Promise<boolean>): Promise<boolean> => {
      if (!templateAt || clientId === null || !zone) return sendNow();
      const refused = await scheduling.schedule({ clientId, to: recipient?.value, caseId, sendAt: templateAt, template: choice }, zone);
      if (refused !== null) {
        toast('error', refused);
        return false;
      }
      setTemplateAt(null);
      return true;
    },
  };
}

export type TSendLater = ReturnType<typeof useSendLater>;
