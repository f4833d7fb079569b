import * as z from 'zod/mini';

// What `POST /api/export/verify` answers (README "Evidence exports"). A plain HTTP route, not a
// procedure, so its type does not come with the router's: the answer is checked before it is drawn.
const ZFormat = z.enum(['pdf', 'json', 'zip']);

export const ZVerifyResult = z.object({
  fileName: z.nullable(z.string()),
  kind: z.enum(['zip', 'pdf', 'json', 'unknown']),
  sha256: z.string(),
  bytes: z.number(),
  export: z.nullable(
    z.object({
      auditEventId: z.number(),
      at: z.string(),
      by: z.object({ id: z.nullable(z.number()), name: z.string() }),
      subject: z.object({ type: z.enum(['client', 'case']), id: z.number(), name: z.string() }),
      format: ZFormat,
      part: z.nullable(z.enum(['transcript.pdf', 'messages.json', 'manifest.json'])),
    }),
  ),
  manifest: z.nullable(
    z.object({
      subject: z.unknown(),
      exportedAt: z.unknown(),
      exportedBy: z.unknown(),
      auditHead: z.unknown(),
      files: z.array(z.object({ path: z.string(), sha256: z.string(), bytes: z.number(), found: z.boolean(), matches: z.boolean() })),
      missing: z.array(z.object({ exhibit: z.number(), name: z.string(), reason: z.string() })),
      extra: z.array(z.string()),
      allMatch: z.boolean(),
    }),
  ),
  verdict: z.enum(['genuine', 'altered', 'unknown']),
  summary: z.string(),
});

export type TVerifyResult = z.infer<typeof ZVerifyResult>;
export type TVerifiedFile = NonNullable<TVerifyResult['manifest']>['files'][number];

/** How a file listed in the manifest compares with the bytes in the ZIP. */
export function checkOf(file: Pick<TVerifiedFile, 'found' | 'matches'>): 'matches' | 'differs' | 'missing' {
  if (!file.found) return 'missing';
  return file.matches ? 'matches' : 'differs';
}
