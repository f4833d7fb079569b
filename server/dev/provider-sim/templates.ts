import type { TSimTemplate, TSimulatorOptions } from './sim-state';

// The template catalogue: what the simulator lists at templatesPath, page by page in either of the
// provider's shapes, and what a template send is checked against. Each of the firm's numbers may have
// its own catalogue (firm-numbers.ts); `templates` is the one of the number asked about.

const DEFAULT_TEMPLATES: TSimTemplate[] = [
  { name: 'hello_world', language: 'en_US', status: 'APPROVED', category: 'UTILITY', body: 'Hello World' },
  {
    name: 'appointment_reminder',
    language: 'en_GB',
    status: 'APPROVED',
    category: 'UTILITY',
    body: 'Hello {{1}}, this is a reminder of your appointment with {{2}} on {{3}}. Reply here to confirm or to rearrange.',
  },
  {
    name: 'document_request',
    language: 'en_GB',
    status: 'APPROVED',
    category: 'UTILITY',
    body: 'Hello {{1}}, to move {{2}} forward we need some documents from you. Please reply to this message so we can tell you what to send.',
  },
  {
    name: 'document_attached',
    language: 'en_GB',
    status: 'APPROVED',
    category: 'UTILITY',
    headerFormat: 'DOCUMENT',
    body: 'Hello {{1}}, the attached document is about {{2}}. Please read it and reply here with any questions.',
  },
  { name: 'fee_update', language: 'en_GB', status: 'PENDING', category: 'UTILITY', body: 'Hello {{1}}, your fee estimate has changed.' },
];

/** The approved template of that name and language, if the catalogue has one. */
export function findApprovedTemplate(
  options: TSimulatorOptions,
  name: string,
  language: string,
  templates = options.templates,
): TSimTemplate | undefined {
  return (templates ?? DEFAULT_TEMPLATES).find((t) => t.name === name && t.language === language && t.status === 'APPROVED');
}

/** The template list, one page of it, in the configured shape. */
export function listTemplatePage(options: TSimulatorOptions, query: URLSearchParams, templates = options.templates): unknown {
  const all = (templates ?? DEFAULT_TEMPLATES).map((t) => ({
    name: t.name,
    language: t.language,
    status: t.status,
    category: t.category,
    components: [...(t.headerFormat ? [{ type: 'HEADER', format: t.headerFormat }] : []), { type: 'BODY', text: t.body }],
  }));
  const size = options.templatePageSize ?? 2;
  if ((options.templateShape ?? 'waba') === 'cloud') {
    const after = Number(query.get('after') ?? 0);
    const data = all.slice(after, after + size);
    const next =
      after + size < all.length
        ? `https://graph.example.invalid${options.templatesPath ?? '/v1/configs/templates'}?after=${after + size}`
        : undefined;
    return { data, paging: { cursors: { before: String(after), after: String(after + size) }, ...(next ? { next } : {}) } };
  }
  const offset = Number(query.get('offset') ?? 0);
  const limit = Number(query.get('limit') ?? size);
  return {
    count: Math.min(limit, Math.max(0, all.length - offset)),
    filters: {},
    limit,
    offset,
    sort: ['id'],
    total: all.length,
    waba_templates: all.slice(offset, offset + limit),
  };
}
