import { useId, useMemo, useState, type FormEvent } from 'react';
import { trpc } from '../../lib/trpc';
import { checkHeaderFile, headerMark, isMediaHeader, TemplateHeaderFile } from './template-header-file';
import { uploadFile } from './upload-file';

/** `header`: the uploaded file a template with a document, photo or video header starts with. */
export type TTemplateChoice = { name: string; language: string; params: string[]; header?: { attachmentId: number } };
type TContext = { firstName: string | null; caseReference: string | null; firmName: string | null };

/**
 * A value for each {{n}} where it fits: the client's first name after a greeting, the firm after
 * "with"/"from", the chosen case after "about"/"in"/"for"/"regarding" or before "forward" ("move
 * {{2}} forward"). Anything else is left for a person.
 */
export function prefillParams(body: string, count: number, context: TContext): string[] {
  return Array.from({ length: count }, (_, i) => {
    const token = `{{${i + 1}}}`;
    const at = body.indexOf(token);
    if (at < 0) return '';
    const before = body.slice(0, at).toLowerCase().trimEnd();
    const after = body.slice(at + token.length).toLowerCase();
    if (/\b(hello|hi|dear|thank you|thanks)$/.test(before)) return context.firstName ?? '';
    if (/\b(with|from)$/.test(before)) return context.firmName ?? '';
    if (/\b(about|in|for|regarding)$/.test(before) || /^\s*forward\b/.test(after)) return context.caseReference ?? '';
    return '';
  });
}

/** Values typed by hand, by position; a position not typed in follows its prefill. */
export type TEditedValues = Partial<Record<number, string>>;

/** The prefilled values with those a person typed in their place. */
export function mergeParams(prefilled: string[], edited: TEditedValues | undefined): string[] {
  return prefilled.map((value, i) => edited?.[i] ?? value);
}

const fill = (body: string, params: string[]) =>
  body.replace(/\{\{\s*(\d+)\s*\}\}/g, (m, n: string) => params[Number(n) - 1] || `[value ${n}]`);
/** The words around placeholder n of a template body: "…appointment on ___ at the office…". */
export function contextOf(body: string, n: number): string {
  const mark = `{{${n}}}`;
  const at = body.indexOf(mark);
  if (at < 0) return '';
  const words = (text: string) =>
    text
      .replace(/\{\{\d+\}\}/g, '…')
      .split(/\s+/)
      .filter(Boolean);
  const before = words(body.slice(0, at));
  const after = words(body.slice(at + mark.length));
  const head = `${before.length > 4 ? '…' : ''}${before.slice(-4).join(' ')}`;
  const tail = `${after.slice(0, 4).join(' ')}${after.length > 4 ? '…' : ''}`;
  const glued = /^[.,;:!?)]/.test(tail) || !tail ? tail : ` ${tail}`;
  return `“${head ? `${head} ` : ''}___${glued}”`;
}

const labelOf = (name: string) => name.replace(/_/g, ' ').replace(/^\w/, (c) => c.toUpperCase());

type TProps = {
  context: TContext;
  onSend: (choice: TTemplateChoice) => Promise<boolean>;
  /** Shown when the window is closed: free text stays possible, but only on purpose. */
  onWriteFreeText: () => void;
  windowOpen: boolean;
  /** The firm's number it goes from: its own approved templates are offered (absent: the main number's). */
  firmNumberId?: number | null;
};

/** Pick an approved template, see its text, fill a field per value (prefilled where it fits), send. */
export function TemplateComposer({ context, onSend, onWriteFreeText, windowOpen, firmNumberId }: TProps) {
  const catalogue = trpc.chat.providerTemplates.useQuery(firmNumberId ? { firmNumberId } : undefined, { staleTime: 60_000 });
  const approved = useMemo(() => (catalogue.data?.templates ?? []).filter((t) => t.status === 'APPROVED'), [catalogue.data]);
  const [key, setKey] = useState('');
  const template = approved.find((t) => `${t.name}|${t.language}` === key) ?? approved[0];
  // Only the values a person typed are kept; the others follow the client, case and firm, so the
  // order of choosing (template, then case) does not matter.
  const [edited, setEdited] = useState<Record<string, TEditedValues>>({});
  const hintId = useId();
  const templateKey = template ? `${template.name}|${template.language}` : '';
  const params = template ? mergeParams(prefillParams(template.body, template.paramCount, context), edited[templateKey]) : [];
  const [sending, setSending] = useState(false);
  // A template that starts with a document, photo or video (server/messaging/README.md "Templates with a file"): its file, checked
  // when chosen and uploaded when sent.
  const headerFormat = template?.headerFormat;
  const [headerFile, setHeaderFile] = useState<File | null>(null);
  const [headerError, setHeaderError] = useState<string | null>(null);
  const [headerProgress, setHeaderProgress] = useState<number | null>(null);
  // The wrong kind of file (a photo for a document) is refused as soon as it is chosen, before any upload.
  const headerProblem = headerFile && isMediaHeader(headerFormat) ? checkHeaderFile(headerFile, headerFormat) : null;
  const chooseHeaderFile = (file: File | null) => {
    setHeaderFile(file);
    setHeaderError(null);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!template) return;
    setSending(true);
    try {
      let header: TTemplateChoice['header'];
      if (isMediaHeader(headerFormat)) {
        if (!headerFile || headerProblem) return; // said beside the file, and Send is off meanwhile
        try {
          setHeaderProgress(0);
          header = { attachmentId: (await uploadFile(headerFile, setHeaderProgress)).attachmentId };
        } catch (error) {
          setHeaderError((error as Error).message);
          return;
        } finally {
          setHeaderProgress(null);
        }
      }
      const ok = await onSend({ name: template.name, language: template.language, params, ...(header ? { header } : {}) });
      if (ok) {
        setEdited(({ [templateKey]: _sent, ...others }) => others);
        setHeaderFile(null);
      }
    } finally {
      setSending(false);
    }
  };

  if (catalogue.isPending) return <p className="muted composer-note">Loading approved templates…</p>;
  if (!template) {
    return (
      <p className="composer-note">
        No approved template is available. A director can refresh them in Settings.{' '}
        <button type="button" className="link-button" onClick={onWriteFreeText}>
          Write free text anyway
        </button>
      </p>
    );
  }
  const missing = params.findIndex((p) => !p.trim());
  const fileMissing = isMediaHeader(headerFormat) && (!headerFile || headerProblem !== null);
  return (
    <form className="template-composer" onSubmit={(event) => void submit(event)} aria-label="Send an approved template">
      <label className="compact-field">
        <span>Approved template</span>
        <select
          value={templateKey}
          onChange={(e) => {
            setKey(e.target.value);
            chooseHeaderFile(null); // a file chosen for one template's header is not another's
          }}
          aria-label="Approved template"
        >
          {approved.map((t) => (
            <option key={`${t.name}|${t.language}`} value={`${t.name}|${t.language}`}>
              {labelOf(t.name)} ({t.language}){headerMark(t.headerFormat)}
            </option>
          ))}
        </select>
      </label>
      {isMediaHeader(headerFormat) && (
        <TemplateHeaderFile
          format={headerFormat}
          file={headerFile}
          onChoose={chooseHeaderFile}
          error={headerProblem ?? headerError}
          progress={headerProgress}
        />
      )}
      {params.length > 0 && (
        <div className="template-fields">
          {params.map((value, i) => (
            <label key={i} className="field">
              <span>Value {i + 1}</span>
              {/* Which blank it fills, in the template's own words ("Value 3" alone said nothing). */}
              <small className="field-hint" id={`${hintId}-${i}`}>
                {contextOf(template.body, i + 1)}
              </small>
              <input
                aria-describedby={`${hintId}-${i}`}
                value={value}
                placeholder={template.examples[i] ? `e.g. ${template.examples[i]}` : undefined}
                onChange={(e) => setEdited((all) => ({ ...all, [templateKey]: { ...all[templateKey], [i]: e.target.value } }))}
                maxLength={1024}
              />
            </label>
          ))}
        </div>
      )}
      <p className="template-preview" aria-label="Preview">
        {fill(template.body, params)}
      </p>
      <div className="button-row">
        <button type="submit" className="button primary" disabled={sending || missing >= 0 || fileMissing}>
          {headerProgress !== null ? 'Uploading…' : sending ? 'Sending…' : 'Send template'}
        </button>
        <button type="button" className="link-button" onClick={onWriteFreeText}>
          {windowOpen ? 'Write a message instead' : 'Write free text anyway'}
        </button>
        {missing >= 0 && <span className="muted">Fill in value {missing + 1}.</span>}
        {missing < 0 && isMediaHeader(headerFormat) && !headerFile && <span className="muted">Choose its file.</span>}
      </div>
    </form>
  );
}
