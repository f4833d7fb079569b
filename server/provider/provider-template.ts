import { z } from 'zod';

// A template as the provider lists it (server/messaging/README.md "Sending messages", Approved templates): name, language (a code, or
// {code} in some listings), status in any case, category, components with a BODY whose text holds
// {{1}}, {{2}}… placeholders. Only APPROVED templates may be sent.

export type TProviderTemplate = {
  name: string;
  language: string;
  status: string;
  category: string | null;
  body: string;
  paramCount: number;
  /** Example values the provider holds for the body's parameters, when it lists them. */
  examples: string[];
  components: unknown[];
};

const ZComponent = z
  .object({
    type: z.string(),
    text: z.string().optional(),
    example: z
      .object({ body_text: z.array(z.array(z.string())).optional() })
      .partial()
      .optional(),
  })
  .passthrough();

const ZListedTemplate = z.object({
  name: z.string().min(1).max(512),
  language: z.union([z.string().min(1), z.object({ code: z.string().min(1) }).transform((l) => l.code)]),
  status: z
    .string()
    .min(1)
    .transform((s) => s.toUpperCase()),
  category: z.string().nullish(),
  components: z.array(z.unknown()).default([]),
});

/** The highest {{n}} in a body: how many parameters the provider expects. */
export function countParams(body: string): number {
  return Math.max(0, ...[...body.matchAll(/\{\{\s*(\d+)\s*\}\}/g)].map((m) => Number(m[1])));
}

/** The body with {{n}} replaced by the n-th parameter: the text the client reads. */
export function renderTemplateBody(body: string, params: string[]): string {
  return body.replace(/\{\{\s*(\d+)\s*\}\}/g, (match, n: string) => params[Number(n) - 1] ?? match);
}

/** A listed template, or null for one that cannot be read (skipped, never fatal to a sync). */
export function parseProviderTemplate(item: unknown): TProviderTemplate | null {
  const parsed = ZListedTemplate.safeParse(item);
  if (!parsed.success) return null;
  const components = parsed.data.components;
  const bodyComponent = components.map((c) => ZComponent.safeParse(c)).find((c) => c.success && c.data.type.toUpperCase() === 'BODY');
  const body = bodyComponent?.success ? (bodyComponent.data.text ?? '') : '';
  const examples = bodyComponent?.success ? (bodyComponent.data.example?.body_text?.[0] ?? []) : [];
  return {
    name: parsed.data.name,
    language: parsed.data.language,
    status: parsed.data.status,
    category: parsed.data.category ?? null,
    body,
    paramCount: countParams(body),
    examples,
    components,
  };
}
