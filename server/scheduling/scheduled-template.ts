import { checkTemplateChoice } from '../messaging';
import { MEDIA_HEADER_FORMATS } from '../templates';
import { AppError } from '../core/errors';
import type { TScheduledTemplate } from './scheduled-inputs';

const HEADER_KIND = { DOCUMENT: 'document', IMAGE: 'image', VIDEO: 'video' } as const;
/** How a sentence names a file of a kind ("attach a photo"). */
export const A_FILE_OF_KIND: Record<string, string> = {
  document: 'a document',
  image: 'a photo',
  video: 'a video',
  audio: 'an audio file',
};

/**
 * A template may be scheduled on the checks a send now makes before any provider call
 * (messaging's checkTemplateChoice), and with a file in its header exactly when it has a document,
 * photo or video header. They are made
 * again when it is sent (a template may be paused meanwhile). Returns it with its values trimmed,
 * as it is kept, and the kind of file its header takes.
 */
export async function checkScheduledTemplate(
  choice: TScheduledTemplate,
  firmNumberId = 1,
): Promise<{ template: TScheduledTemplate; headerKind: 'document' | 'image' | 'video' | null }> {
  const { template, params } = await checkTemplateChoice(choice, firmNumberId);
  const format = MEDIA_HEADER_FORMATS.find((f) => f === template.headerFormat);
  const headerKind = format ? HEADER_KIND[format] : null;
  if (!headerKind && choice.header)
    throw new AppError('INVALID_INPUT', `The template "${template.name}" has no document, photo or video header: send it without a file.`, {
      header: ['This template takes no file.'],
    });
  if (headerKind && !choice.header)
    throw new AppError(
      'INVALID_INPUT',
      `The template "${template.name}" is sent with ${A_FILE_OF_KIND[headerKind]} in its header: attach one.`,
      {
        header: [`Attach ${A_FILE_OF_KIND[headerKind]}.`],
      },
    );
  return {
    template: { name: template.name, language: template.language, params, ...(choice.header ? { header: choice.header } : {}) },
    headerKind,
  };
}
