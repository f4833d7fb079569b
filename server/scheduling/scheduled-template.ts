import { findTemplate, MEDIA_HEADER_FORMATS } from '../templates';
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
 * (messaging's sendTemplateMessage): known and approved in that language, with every value given,
 * and a file in its header exactly when it has a document, photo or video header. They are made
 * again when it is sent (a template may be paused meanwhile). Returns it with its values trimmed,
 * as it is kept, and the kind of file its header takes.
 */
export async function checkScheduledTemplate(
  choice: TScheduledTemplate,
): Promise<{ template: TScheduledTemplate; headerKind: 'document' | 'image' | 'video' | null }> {
  const template = await findTemplate(choice.name, choice.language);
  if (!template)
    throw new AppError(
      'INVALID_INPUT',
      `There is no template "${choice.name}" in ${choice.language}: refresh the templates or choose another.`,
      { name: ['Choose one of the approved templates.'] },
    );
  if (template.status !== 'APPROVED')
    throw new AppError(
      'INVALID_INPUT',
      `The template "${choice.name}" (${choice.language}) is ${template.status.toLowerCase()} at the provider, not approved: choose another.`,
      { name: ['Choose an approved template.'] },
    );
  const params = choice.params.map((p) => p.trim());
  if (params.length !== template.paramCount)
    throw new AppError(
      'INVALID_INPUT',
      `The template "${choice.name}" takes ${template.paramCount} value${template.paramCount === 1 ? '' : 's'}, not ${params.length}.`,
      { params: [`Fill in all ${template.paramCount} fields.`] },
    );
  const empty = params.findIndex((p) => !p);
  if (empty >= 0)
    throw new AppError('INVALID_INPUT', `Fill in field ${empty + 1} of the template.`, { params: [`Field ${empty + 1} is empty.`] });
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
