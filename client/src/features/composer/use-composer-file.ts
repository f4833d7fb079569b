import { useEffect, useState } from 'react';
import { checkUploadSize } from './upload-file';
import { useDraft } from './use-draft';
import { noteUploadStarted, useUploading } from './unsent-work';

/** The file a caption was written for, kept with the draft: a reload must not leave a caption that would go alone. */
type TFileNote = { name: string; size: number };

function parseFileNote(text: string): TFileNote | null {
  if (!text) return null;
  try {
    const value = JSON.parse(text) as Partial<TFileNote>;
    return typeof value.name === 'string' && typeof value.size === 'number' ? { name: value.name, size: value.size } : null;
  } catch {
    return null;
  }
}

type TSendFile = (file: File, onProgress: (fraction: number) => void) => Promise<{ ok: true } | { ok: false; error: string | null }>;

/**
 * The file to send with the composer's text as its caption: chosen (picked, pasted, or dropped on the
 * thread), its upload's progress, and why it was refused. The file's name is kept with the draft:
 * after a reload (or coming back to the conversation) the file itself is gone, and the caption must
 * not be sent without it.
 */
export function useComposerFile(draftKey: string, file: File | null, onFileChange: (file: File | null) => void) {
  const noteDraft = useDraft(`${draftKey}:file`);
  const setNote = noteDraft.setText;
  const note = parseFileNote(noteDraft.text);
  const uploadingElsewhere = useUploading(draftKey);
  useEffect(() => {
    if (file) setNote(JSON.stringify({ name: file.name, size: file.size } satisfies TFileNote));
  }, [file, setNote]);
  const [progress, setProgress] = useState<number | null>(null);
  // Over its limit: said before anything is uploaded. Refused by the server: its sentence, until
  // another file is chosen.
  const tooLarge = file ? checkUploadSize(file) : null;
  const [uploadError, setUploadError] = useState<{ file: File; message: string } | null>(null);
  return {
    /** The name and size of the file the caption is for (it may be gone: see `lost`). */
    note,
    forgetNote: () => setNote(''),
    /** The caption's file is not here any more (and not still uploading from another screen). */
    lost: !file && note !== null && !uploadingElsewhere,
    uploadingElsewhere,
    progress,
    tooLarge,
    error: tooLarge ?? (uploadError && uploadError.file === file ? uploadError.message : null),
    choose: (chosen: File | null) => {
      setUploadError(null);
      if (!chosen) setNote('');
      onFileChange(chosen);
    },
    /** Uploads and sends `chosen`; true once it went (the file is then cleared), false when it stays to send again. */
    send: async (chosen: File, send: TSendFile): Promise<boolean> => {
      if (checkUploadSize(chosen)) return false;
      setUploadError(null);
      setProgress(0);
      // Leaving the page now would lose the upload: it asks first (unsent-work.ts).
      const uploaded = noteUploadStarted(draftKey, chosen.name);
      const result = await send(chosen, setProgress).finally(uploaded);
      setProgress(null);
      if (result.ok) {
        onFileChange(null);
        setNote('');
        return true;
      }
      if (result.error) setUploadError({ file: chosen, message: result.error }); // the file and the caption stay, to send again
      return false;
    },
  };
}
