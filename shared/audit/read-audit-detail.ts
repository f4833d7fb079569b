import type { z } from 'zod/mini';
import { AUDIT_DETAILS, type TAuditAction, type TAuditDetail } from './audit-details';

/**
 * An event's detail as far as it matches its action's schema, field by field: the trail keeps rows
 * written by earlier versions (a field missing, added later, or of another shape), and each field
 * that still reads is kept, so their sentences say what they can. A field of the wrong shape, and an
 * empty text, read as absent.
 */
export function readAuditDetail<A extends TAuditAction>(action: A, detail: unknown): Partial<TAuditDetail<A>> {
  const schema: z.ZodMiniObject<Record<string, z.ZodMiniType>> | undefined = AUDIT_DETAILS[action];
  if (!schema || typeof detail !== 'object' || detail === null || Array.isArray(detail)) return {};
  const read: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(schema.shape)) {
    const value: unknown = (detail as Record<string, unknown>)[key];
    if (value === undefined || value === '') continue;
    const parsed = field.safeParse(value);
    if (parsed.success) read[key] = parsed.data;
  }
  return read as Partial<TAuditDetail<A>>;
}
