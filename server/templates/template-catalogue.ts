import { QueryTypes } from 'sequelize';
import type { ProviderClient, TProviderTemplate } from '../provider';
import { db } from '../core/db/db';
import { BUILT_IN_TEMPLATES } from './built-in-templates';

// The catalogue lives in PostgreSQL with the time of its last sync, so every instance offers the
// same templates; a sync replaces it whole (templates deleted at the provider disappear).

export const HEADER_FORMATS = ['DOCUMENT', 'IMAGE', 'VIDEO', 'TEXT', 'LOCATION'] as const;
export type THeaderFormat = (typeof HEADER_FORMATS)[number];
/** The header formats that carry a file, sent with the template (server/messaging/README.md "Sending messages", Approved templates). */
export const MEDIA_HEADER_FORMATS = ['DOCUMENT', 'IMAGE', 'VIDEO'] as const satisfies readonly THeaderFormat[];
export type TMediaHeaderFormat = (typeof MEDIA_HEADER_FORMATS)[number];

export type TTemplateDto = {
  name: string;
  language: string;
  category: string | null;
  status: string;
  body: string;
  paramCount: number;
  examples: string[];
  /** What the template's header holds, as the provider lists it (its HEADER's `format`); null: no header. */
  headerFormat: THeaderFormat | null;
};

/** The stored template's HEADER `format`, one of HEADER_FORMATS or null, read from its components in SQL. */
const HEADER_FORMAT_SQL = `(SELECT upper(h->>'format') FROM jsonb_array_elements(components) h
   WHERE upper(h->>'type') = 'HEADER' AND upper(h->>'format') IN (${HEADER_FORMATS.map((f) => `'${f}'`).join(', ')}) LIMIT 1)`;

export type TTemplateCatalogue = { templates: TTemplateDto[]; syncedAt: Date | null };

/** Where templates come from: the provider in live mode, the built-in approved set in demo mode. */
export type TTemplateSource = { provider: ProviderClient | null; templatesPath: string };

/** The catalogue of one of the firm's numbers (each has its own approved templates at the provider; number 1 by default). */
export async function listStoredTemplates(firmNumberId = 1): Promise<TTemplateCatalogue> {
  const rows = await db().query<TTemplateDto & { components: unknown }>(
    `SELECT name, language, category, status, body, param_count AS "paramCount", ${HEADER_FORMAT_SQL} AS "headerFormat",
            coalesce((SELECT array_agg(e) FROM jsonb_array_elements_text(
              (SELECT c->'example'->'body_text'->0 FROM jsonb_array_elements(components) c WHERE upper(c->>'type') = 'BODY' LIMIT 1)) e), '{}') AS examples
     FROM provider_templates WHERE firm_number_id = $1 ORDER BY (status = 'APPROVED') DESC, name, language`,
    { bind: [firmNumberId], type: QueryTypes.SELECT },
  );
  const [sync] = await db().query<{ syncedAt: Date }>('SELECT synced_at AS "syncedAt" FROM provider_template_sync', {
    type: QueryTypes.SELECT,
  });
  return { templates: rows.map(({ components: _c, ...t }) => t), syncedAt: sync?.syncedAt ?? null };
}

/** Reads a number's catalogue (every page, with that number's key) and replaces the stored one in one transaction. */
export async function syncTemplates(source: TTemplateSource, firmNumberId = 1): Promise<TTemplateCatalogue> {
  const templates = source.provider ? await source.provider.listTemplates(source.templatesPath) : BUILT_IN_TEMPLATES;
  await storeTemplates(templates, firmNumberId);
  return listStoredTemplates(firmNumberId);
}

async function storeTemplates(templates: TProviderTemplate[], firmNumberId: number): Promise<void> {
  // The same name and language listed twice (pages overlapping) is one template: the last wins.
  const unique = [...new Map(templates.map((t) => [`${t.name}\u0000${t.language}`, t])).values()];
  await db().transaction(async (transaction) => {
    await db().query('DELETE FROM provider_templates WHERE firm_number_id = $1', { bind: [firmNumberId], transaction });
    await db().query(
      `INSERT INTO provider_templates (name, language, status, category, body, param_count, components, firm_number_id)
       SELECT *, $8::int FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::jsonb[])`,
      {
        bind: [
          unique.map((t) => t.name),
          unique.map((t) => t.language),
          unique.map((t) => t.status),
          unique.map((t) => t.category),
          unique.map((t) => t.body),
          unique.map((t) => t.paramCount),
          unique.map((t) => JSON.stringify(t.components)),
          firmNumberId,
        ],
        transaction,
      },
    );
    await db().query(
      `INSERT INTO provider_template_sync (singleton, synced_at) VALUES (true, now())
       ON CONFLICT (singleton) DO UPDATE SET synced_at = excluded.synced_at`,
      { transaction },
    );
  });
}

/** One stored template of a firm number's catalogue by name and language, or null. */
export async function findTemplate(name: string, language: string, firmNumberId = 1): Promise<TTemplateDto | null> {
  const [row] = await db().query<TTemplateDto>(
    `SELECT name, language, category, status, body, param_count AS "paramCount", '{}'::text[] AS examples,
            ${HEADER_FORMAT_SQL} AS "headerFormat"
     FROM provider_templates WHERE name = $1 AND language = $2 AND firm_number_id = $3`,
    { bind: [name, language, firmNumberId], type: QueryTypes.SELECT },
  );
  return row ?? null;
}

/** `firmNumberId`: the number whose account the event came from (the webhook's route step; absent: number 1). */
export type TTemplateStatusUpdate = { name: string; language: string; status: string; firmNumberId?: number };

/** `message_template_status_update` events: the number's stored template takes the new status. */
export async function applyTemplateStatusUpdates(updates: TTemplateStatusUpdate[]): Promise<number> {
  if (updates.length === 0) return 0;
  const rows = await db().query<{ name: string }>(
    `UPDATE provider_templates t SET status = u.status, updated_at = now()
     FROM unnest($1::text[], $2::text[], $3::text[], $4::int[]) AS u(name, language, status, firm_number_id)
     WHERE t.name = u.name AND t.language = u.language AND t.firm_number_id = u.firm_number_id RETURNING t.name`,
    {
      bind: [
        updates.map((u) => u.name),
        updates.map((u) => u.language),
        updates.map((u) => u.status),
        updates.map((u) => u.firmNumberId ?? 1),
      ],
      type: QueryTypes.SELECT,
    },
  );
  return rows.length;
}
