import { z } from 'zod/mini';
import type { TUserRole } from '../communication';
import { SESSION_METHODS } from '../session-methods';
import { READ_RECEIPT_MODES } from '../read-receipts';
import { REQUIRE_MFA } from '../security-policy';

// What each audit action's `detail` holds, as the server writes it today (server/decisions/0012-append-only-audit-trail.md):
// one strict schema per action. The server's recordAuditEvent is typed by them, the trail's tests
// parse what it wrote with them, and the SPA reads its sentences through them (readAuditDetail).
// zod/mini: the Audit screen's bundle carries these, and mini is a quarter of classic zod's size there.

const id = z.int();
const count = z.int().check(z.nonnegative());
const sha256 = z.string().check(z.regex(/^[0-9a-f]{64}$/));
/** A base64 Ed25519 signature (64 bytes). */
const signature = z.string().check(z.regex(/^[A-Za-z0-9+/]{86}==$/));
/** An instant as the server writes it: toISOString(), or jsonb's text of a timestamptz (an offset). */
const instant = z.iso.datetime({ offset: true });
const digits = z.string().check(z.regex(/^\d+$/));
const scheduledKind = z.enum(['text', 'template', 'file']);
const conversationState = z.enum(['open', 'done', 'snoozed']);
// Listed here rather than imported: shared/communication's classic schemas would come into the SPA's bundle with it.
const role = z.enum(['director', 'staff'] as const satisfies readonly TUserRole[]);
/** The true reason a sign-in was refused, kept for the trail's readers (the person is told less). */
export const SIGN_IN_REFUSALS = [
  'wrong_password',
  'unknown_email',
  'deactivated',
  'invalid_email',
  // Single sign-on's (server/auth/oidc): the provider's answer failed its checks, its email was not verified, its domain is not allowed.
  'sso_failed',
  'sso_unverified_email',
  'sso_domain_not_allowed',
  // A second step's answer (server/auth/README.md "Two-step sign-in").
  'wrong_code',
  'replayed_code',
  'wrong_recovery_code',
  'wrong_passkey',
] as const;

/** A wall change on a client lets go of what someone walled off held (server/ownership/README.md "Ownership"): said only when it happened. */
const wallRelease = { conversationUnassigned: z.optional(z.literal(true)), responsibleCleared: z.optional(z.literal(true)) };
const person = { userId: id, name: z.string() };
const numberChange = z.strictObject({ digits });
const numberMove = z.strictObject({ digits, moved: count, ids: z.array(id) });
/** An assignment or a responsible person: who before, who after (null: nobody). */
const personChange = z.strictObject({ from: z.nullable(id), to: z.nullable(id) });
const scheduled = { scheduledSendId: id, kind: scheduledKind };

/** The detail schema of every action, in the order the trail's actions were added. */
export const AUDIT_DETAILS = {
  // `method` since sessions record how they began; older events have none.
  'auth.sign_in': z.strictObject({ method: z.optional(z.enum(SESSION_METHODS)) }),
  'auth.sign_in_failed': z.strictObject({ email: z.string(), reason: z.optional(z.enum(SIGN_IN_REFUSALS)) }),
  // One of address or email, as `limited` says.
  'auth.sign_in_limited': z.strictObject({
    limited: z.enum(['address', 'account']),
    address: z.optional(z.string()),
    email: z.optional(z.string()),
    attempts: count,
    window_minutes: count,
    blocked_until: instant,
  }),
  'auth.sign_out': z.strictObject({}),
  'inbox.link': numberMove,
  'inbox.unlink': numberMove,
  'client.number_add': numberChange,
  'client.number_remove': numberChange,
  // A court bundle (zip) also counts its exhibits and hashes its parts (server/export/README.md "Evidence exports").
  'export.create': z.strictObject({
    format: z.enum(['pdf', 'json', 'zip']),
    sha256,
    bytes: count,
    messages: count,
    fileName: z.string(),
    exhibits: z.optional(count),
    missingExhibits: z.optional(count),
    manifestSha256: z.optional(sha256),
    transcriptSha256: z.optional(sha256),
    jsonSha256: z.optional(sha256),
    // The firm's Ed25519 signature (base64) over the export's 32-byte SHA-256, the key's fingerprint, and for a
    // bundle the same over each part's digest (server/decisions/0023-signing-key.md): a row alone proves nothing.
    signature: z.optional(signature),
    signingKey: z.optional(sha256),
    partSignatures: z.optional(z.strictObject({ 'transcript.pdf': signature, 'messages.json': signature, 'manifest.json': signature })),
  }),
  'export.verify': z.strictObject({
    sha256,
    verdict: z.enum(['genuine', 'altered', 'unknown']),
    auditEventId: z.nullable(id),
    attachmentId: z.nullable(id),
  }),
  'settings.check_connection': z.strictObject({ status: z.string(), numberId: z.optional(id) }),
  'templates.refresh': z.strictObject({ count }),
  'client.opt_out': z.strictObject({ source: z.string(), digits }),
  // A number's START text names that number; a director clearing a client's opt-out, every number cleared.
  'client.opt_in': z.strictObject({ source: z.string(), digits: z.union([digits, z.array(digits)]) }),
  'chat.reconciled': z.strictObject({ chatMsgId: z.string(), undone: z.optional(z.string()) }),
  'communication.refile': z.strictObject({
    caseId: z.nullable(id),
    records: z.array(z.strictObject({ id, fromCaseId: z.nullable(id) })),
  }),
  'user.add': z.strictObject({ email: z.string(), role }),
  'user.role_change': z.strictObject({ from: role, to: role }),
  'user.deactivate': z.strictObject({
    role,
    sessionsEnded: count,
    conversationsUnassigned: z.optional(count),
    clientsNoLongerResponsible: z.optional(count),
  }),
  'user.reactivate': z.strictObject({ role }),
  'access.restrict': z.strictObject({ ...wallRelease }),
  'access.unrestrict': z.strictObject({ ...wallRelease }),
  'access.member_add': z.strictObject({ ...person, ...wallRelease }),
  'access.member_remove': z.strictObject({ ...person, ...wallRelease }),
  'access.screen': z.strictObject({ ...person, reason: z.string(), self: z.boolean(), ...wallRelease }),
  'access.unscreen': z.strictObject({ ...person, ...wallRelease }),
  // What was tried and which wall stopped it (server/access/README.md "What the trail records"); rows before them have the path alone.
  'access.denied': z.strictObject({
    path: z.string(),
    opened: z.optional(z.enum(['client', 'case', 'conversation', 'file', 'export', 'change'])),
    wall: z.optional(z.enum(['screen', 'restriction'])),
  }),
  'inbox.assign': personChange,
  // A snooze ended by the system says when it ended; one set by a person, until when.
  'inbox.state': z.strictObject({
    from: conversationState,
    to: conversationState,
    snoozeUntil: z.optional(instant),
    snoozeEnded: z.optional(instant),
  }),
  'client.responsible': personChange,
  'case.status': z.strictObject({ from: z.enum(['open', 'closed']), to: z.enum(['open', 'closed']) }),
  'media.view': z.strictObject({ attachmentId: id, communicationId: z.nullable(id), bytes: count }),
  'hold.place': z.strictObject({ holdId: id, reason: z.string() }),
  'hold.release': z.strictObject({ holdId: id }),
  'retention.destroy': z.strictObject({
    batchId: z.uuid(),
    kind: z.enum(['retention', 'erasure']),
    records: count,
    files: count,
    bytes: count,
    cases: count,
    clients: count,
    leftOut: count,
    itemsSha256: sha256,
  }),
  // `noted`: a note was written. The note itself stays on the request, erased with the client: the trail, which
  // nothing erases, keeps no words about the person (events before this carry `note`).
  'erasure.request': z.strictObject({ requestId: id, receivedAt: instant, note: z.optional(z.string()), noted: z.optional(z.boolean()) }),
  // Grounds for a refusal; the erasure batch for an erase.
  'erasure.decide': z.strictObject({
    requestId: id,
    decision: z.enum(['erase', 'refuse']),
    grounds: z.optional(z.enum(['legal_claims', 'legal_obligation', 'hold'])),
    batchId: z.optional(z.uuid()),
  }),
  // How many signed checkpoints were checked, and the first found wrong (server/audit/audit-checkpoints.ts).
  'audit.verify': z.strictObject({
    ok: z.boolean(),
    rows: count,
    headId: z.nullable(id),
    firstBadId: z.optional(id),
    checkpoints: z.optional(count),
    firstBadCheckpointId: z.optional(id),
  }),
  'chat.schedule': z.strictObject({
    ...scheduled,
    sendAt: instant,
    caseId: z.optional(id),
    attachmentId: z.optional(id),
    template: z.optional(z.string()),
    unlessReplied: z.optional(z.literal(true)),
  }),
  'chat.edit_scheduled': z.strictObject({ ...scheduled, sendAt: instant }),
  'chat.reschedule': z.strictObject({ ...scheduled, from: instant, sendAt: instant }),
  'chat.cancel_scheduled': z.strictObject({ ...scheduled, sendAt: instant, was: z.enum(['scheduled', 'not_sent']) }),
  // What a save changed (server/messaging/README.md "Business hours"): the reply by its length only, never its words.
  'settings.business_hours': z.strictObject({
    first: z.boolean(),
    timeZone: z.optional(z.strictObject({ from: z.nullable(z.string()), to: z.string() })),
    week: z.optional(z.strictObject({ from: z.nullable(z.array(z.string())), to: z.array(z.string()) })),
    closedDates: z.optional(z.strictObject({ added: z.array(z.string()), removed: z.array(z.string()) })),
    autoReply: z.optional(
      z.strictObject({ from: z.nullable(z.strictObject({ length: count })), to: z.nullable(z.strictObject({ length: count })) }),
    ),
  }),
  // What a save of the sign-in policy changed, setting by setting (`from`: what was in force before).
  'settings.security': z.strictObject({
    requireMfa: z.optional(z.strictObject({ from: z.enum(REQUIRE_MFA), to: z.enum(REQUIRE_MFA) })),
    sessionIdleMinutes: z.optional(z.strictObject({ from: count, to: count })),
    sessionMaxHours: z.optional(z.strictObject({ from: count, to: count })),
  }),
  // The firm's read-receipt policy changed (`from`: what was in force, READ_RECEIPTS' value before the first save).
  'settings.read_receipts': z.strictObject({ from: z.enum(READ_RECEIPT_MODES), to: z.enum(READ_RECEIPT_MODES) }),
  // A protected table changed: written by the database's own trigger (migrations 0026, 0027), naming the
  // database role, the person the app said it acted for, and the app's event of the same transaction
  // (none: nothing of the app's said so; absent in rows before 0027, which were written only then).
  // Columns are named, never their values (a password's hash is a changed column, no more).
  'db.change': z.strictObject({
    table: z.string(),
    op: z.enum(['insert', 'update', 'delete']),
    row: z.record(z.string(), z.union([z.int(), z.string(), z.boolean()])),
    changed: z.array(z.string()),
    dbRole: z.string(),
    actorId: z.nullable(id),
    appEventId: z.optional(z.nullable(z.int())),
  }),
  /** Someone signed out one of their own sessions from Settings; `current`: the one they were using. */
  'auth.session_revoked': z.strictObject({ method: z.enum(SESSION_METHODS), current: z.optional(z.literal(true)) }),
  /** Someone changed their own password; their other sessions ended. */
  'auth.password_change': z.strictObject({ sessionsEnded: count }),
  /** A director ended every session of a person (subject `user:<id>`). */
  'user.sessions_ended': z.strictObject({ sessionsEnded: count }),
  /** Someone set up a second factor for themself (subject `user:<id>`). */
  'auth.mfa_enrol': z.strictObject({ method: z.enum(['totp']) }),
  /** Someone removed one of their second factors; their other sessions ended with it. */
  'auth.mfa_remove': z.strictObject({ method: z.enum(['totp']), sessionsEnded: count }),
  /** Someone proved their second factor again on a session, for a change that asks for it (server/auth/README.md "Step-up and the firm's policy"). */
  'auth.step_up': z.strictObject({ method: z.enum(['totp', 'recovery_code', 'passkey']) }),
  /** Someone replaced their recovery codes with a new set of `count`. */
  'auth.recovery_codes_regenerated': z.strictObject({ count }),
  /** A director invited someone (subject `email:<address>`); `replaced`: an earlier pending invitation went. */
  'user.invite': z.strictObject({ invitationId: id, name: z.string(), role, expiresAt: instant, replaced: z.optional(z.literal(true)) }),
  /** The invited person set their password: their account exists from here (subject `user:<id>`). */
  'user.accept': z.strictObject({ invitationId: id, email: z.string(), role, invitedBy: z.nullable(id) }),
  /** A director withdrew a pending invitation (subject `email:<address>`). */
  'user.invite_revoke': z.strictObject({ invitationId: id }),
  /** A person added a passkey to their account (subject `user:<id>`); `name` is what they called it. */
  'auth.passkey_add': z.strictObject({ passkeyId: id, name: z.string() }),
  /** A person removed one of their passkeys; their other sessions ended with it. */
  'auth.passkey_remove': z.strictObject({ passkeyId: id, name: z.string(), sessionsEnded: count }),
  /** A director added to the firm's wording (subject `wording`): its title, never its body (server/wording/README.md "Firm wording"). */
  'wording.add': z.strictObject({ wordingId: id, title: z.string() }),
  /** A director changed one of the firm's wording; `changed`: which of its title and body, `from`: the title it had. */
  'wording.update': z.strictObject({
    wordingId: id,
    title: z.string(),
    from: z.optional(z.string()),
    changed: z.array(z.enum(['title', 'body'])),
  }),
  /** A director removed one of the firm's wording. */
  'wording.remove': z.strictObject({ wordingId: id, title: z.string() }),
  /** A director added a business number (subject `numbers`): its digits and label, never its key or secret. */
  'number.add': z.strictObject({ numberId: id, phone: z.string(), label: z.string() }),
  /** A director changed a business number: which of its label, key, webhook secret and provider id (`from`: the label it had). */
  'number.update': z.strictObject({
    numberId: id,
    phone: z.string(),
    label: z.string(),
    from: z.optional(z.string()),
    changed: z.array(z.enum(['label', 'apiKey', 'webhookSecret', 'phoneNumberId'])),
  }),
  /** A director deactivated a business number: nothing is sent from it, and what is posted for it is ignored. */
  'number.deactivate': z.strictObject({ numberId: id, phone: z.string(), label: z.string() }),
  /**
   * A client's old chat imported from a phone's export (subject `client:<id>`): the export's SHA-256 and name, and what
   * became records (`duplicates`: messages already on file from an earlier import).
   */
  'import.commit': z.strictObject({
    importId: z.string(),
    caseId: z.optional(id),
    fileName: z.string(),
    fileSha256: z.string(),
    imported: count,
    duplicates: count,
    attachments: count,
  }),
} as const;

export type TAuditAction = keyof typeof AUDIT_DETAILS;
/** The detail an action's event carries. */
export type TAuditDetail<A extends TAuditAction = TAuditAction> = z.infer<(typeof AUDIT_DETAILS)[A]>;

/** The actions the trail records: the map's keys, so an action without a schema cannot exist. */
export const AUDIT_ACTIONS = Object.keys(AUDIT_DETAILS) as [TAuditAction, ...TAuditAction[]];

/** Whether `detail` is exactly what `action` writes today (rows of earlier versions may not be: see readAuditDetail). */
export const parseAuditDetail = <A extends TAuditAction>(action: A, detail: unknown) => AUDIT_DETAILS[action].safeParse(detail);
