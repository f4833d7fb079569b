import type { ComponentProps, ReactNode } from 'react';
import { useNarrowScreen } from '../../lib/use-narrow-screen';
import { TemplateComposer } from './template-composer';
import { TemplateLater } from './template-later';
import type { TSendLater } from './use-send-later';

/**
 * The composer sending an approved template: the tools, the template form and, in a client's
 * conversation (`later`), its "Schedule for later". On a small screen the form would take the whole
 * conversation: it waits behind one line until `open`.
 */
export function TemplateMode({
  tools,
  later,
  open,
  onOpenChange,
  ...form
}: ComponentProps<typeof TemplateComposer> & {
  tools: ReactNode;
  later: TSendLater | null;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  const narrow = useNarrowScreen();
  if (narrow && !open) {
    return (
      <div className="composer">
        {/* The numbers stay in sight (and choosable): which number a template goes from decides which templates there are. */}
        {tools}
        <div className="template-summary">
          <button type="button" className="button primary small" aria-expanded={false} onClick={() => onOpenChange(true)}>
            Send a template…
          </button>
          <button type="button" className="link-button" onClick={form.onWriteFreeText}>
            {form.windowOpen ? 'Write a message instead' : 'Write free text anyway'}
          </button>
        </div>
      </div>
    );
  }
  return (
    <div className="composer">
      {narrow && (
        <button type="button" className="link-button template-hide" aria-expanded={true} onClick={() => onOpenChange(false)}>
          Hide the template form
        </button>
      )}
      {tools}
      <TemplateComposer {...form} />
      {later && (
        <TemplateLater
          zone={later.zone}
          zoneError={later.zoneError}
          at={later.templateAt}
          onAt={later.setTemplateAt}
          picking={later.picking}
          onPicking={later.setPicking}
          replyOption={later.replyOption}
        />
      )}
    </div>
  );
}
