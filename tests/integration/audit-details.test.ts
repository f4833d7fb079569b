import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { createLogger } from '../../server/core/logger';
import { runApprovedBatch } from '../../server/records';
import { AUDIT_ACTIONS, parseAuditDetail, type TAuditAction } from '../../shared/audit/audit-details';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';
import { codeAt, enrolTotp } from '../support/mfa';
import { makeOldMatter } from '../support/records';
import { createHttpClient } from '../support/test-server';
import { cloudPayload, postWebhook, sql, textMessage } from '../support/webhook';

// Every event the server writes is what its action's schema says (shared/audit/audit-details.ts):
// the server's types check the details it builds in TypeScript, and this checks the rest (spreads,
// rows written by SQL, values read from the database) by driving the firm's actions through the real
// server and parsing every row of the trail with its action's strict schema.

let live: TLiveSetup;
let directorCookie = '';
let seq = 0;

beforeAll(async () => {
  // A low per-account limit, so a burst of wrong passwords is limited (and recorded) in a few attempts.
  live = await startLiveSetup({}, { signInLimits: { perIp: 100, perAccount: 3 } });
  const { client, jar } = createHttpClient(live.server.url);
  await client.auth.signIn.mutate({ email: 'dee@firm.test', password: 'director-password' });
  directorCookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
});
afterAll(() => live?.stop());

/** A text from `from`, each one dated after the one before (opt-outs follow the newest). */
const inbound = (from: string, body: string) =>
  postWebhook(
    live.server.url,
    cloudPayload({ messages: [textMessage(`wamid.audit-${++seq}`, from, body, String(Math.floor(Date.now() / 1000) + seq))] }),
  );

const get = (path: string) => fetch(`${live.server.url}${path}`, { headers: { cookie: directorCookie } });

const userId = async (email: string) =>
  (await sql<{ id: number }>(live.server.databaseUrl, 'SELECT id FROM users WHERE email = $1', [email]))[0]!.id;

async function signInsAndPeople(): Promise<void> {
  const other = createHttpClient(live.server.url).client;
  await expect(other.auth.signIn.mutate({ email: 'sam@firm.test', password: 'wrong-password' })).rejects.toThrow();
  await other.auth.signIn.mutate({ email: 'sam@firm.test', password: 'staff-password' });
  await other.auth.signOut.mutate();
  // Sessions people see and end: one signed out from its own list, all of a person's by a director.
  await other.auth.signIn.mutate({ email: 'sam@firm.test', password: 'staff-password' });
  const own = (await other.auth.sessions.query()).find((session) => session.current)!;
  await other.auth.revokeSession.mutate({ id: own.id });
  for (let attempt = 0; attempt < 4; attempt++)
    await expect(other.auth.signIn.mutate({ email: 'nobody@firm.test', password: 'guess' })).rejects.toThrow();

  const dee = live.director;
  await dee.settings.checkConnection.mutate();
  await dee.chat.refreshTemplates.mutate();
  const { user: rosa } = await dee.users.add.mutate({
    name: 'Rosa Reyes',
    email: 'rosa@firm.test',
    role: 'staff',
    password: 'a long enough password',
  });
  // Rosa changes the password she was given (her other sessions, none here, end).
  const rosaAt = createHttpClient(live.server.url).client;
  await rosaAt.auth.signIn.mutate({ email: rosa.email, password: 'a long enough password' });
  await rosaAt.auth.changePassword.mutate({ currentPassword: 'a long enough password', newPassword: 'a password of her own' });
  await dee.users.changeRole.mutate({ userId: rosa.id, role: 'director' });
  await dee.users.endSessions.mutate({ userId: rosa.id });
  await dee.users.deactivate.mutate({ userId: rosa.id });
  await dee.users.reactivate.mutate({ userId: rosa.id });
  // Invitations: one accepted (its person signed in), one replaced, one withdrawn.
  const invited = await dee.users.invite.mutate({ name: 'Ivy Invited', email: 'ivy@firm.test', role: 'staff' });
  await dee.users.invite.mutate({ name: 'Ivy Invited', email: 'ivy@firm.test', role: 'staff' }).then(({ inviteUrl }) =>
    createHttpClient(live.server.url).client.auth.acceptInvite.mutate({
      token: inviteUrl.split('/').at(-1)!,
      password: 'ivy-own-passphrase',
    }),
  );
  await dee.users.invite.mutate({ name: 'Walt Withdrawn', email: 'walt@firm.test', role: 'staff' });
  await dee.users.revokeInvite.mutate({ id: (await dee.users.invitations.query()).find((i) => i.email === 'walt@firm.test')!.id });
  expect(invited.invitation.email).toBe('ivy@firm.test');
  await dee.settings.setBusinessHours.mutate({
    timeZone: 'Europe/London',
    week: [{ day: 1, opens: '09:00', closes: '17:30' }],
    closedDates: ['2026-12-25'],
    autoReply: 'We are closed; we will reply when we open.',
  });
  await dee.settings.setSecurity.mutate({ requireMfa: 'none', sessionIdleMinutes: 480, sessionMaxHours: 24 });
  await dee.settings.setSecurity.mutate({ requireMfa: 'none', sessionIdleMinutes: 10_080, sessionMaxHours: 168 });
  await dee.settings.setReadReceipts.mutate({ mode: 'assignee' });
  await dee.settings.setReadReceipts.mutate({ mode: 'off' });
}

/** A client's numbers, opt-outs, case, records, owner and scheduled sends. */
async function aClientsDay(): Promise<void> {
  const sam = live.staff;
  const samId = await userId('sam@firm.test');
  const amelia = await sam.clients.create.mutate({ name: 'Amelia Hart', phone: '+447700900123' });
  await sam.clients.addNumber.mutate({ clientId: amelia.id, phone: '+447700900124' });
  await sam.clients.removeNumber.mutate({ clientId: amelia.id, phone: '+447700900124' });
  await inbound('447700900999', 'A stranger writes');
  await sam.inbox.link.mutate({ phone: '447700900999', clientId: amelia.id });
  await sam.inbox.unlink.mutate({ phone: '447700900999', clientId: amelia.id });

  await inbound('447700900123', 'Hello, about my deposit');
  await inbound('447700900123', 'STOP');
  await inbound('447700900123', 'START');
  await inbound('447700900123', 'STOP');
  await live.director.clients.clearOptOut.mutate({ clientId: amelia.id });

  const kase = await sam.cases.create.mutate({ clientId: amelia.id, reference: 'HART-1', title: 'Hart v Northwind Lettings' });
  const [record] = (await sam.timeline.client.query({ clientId: amelia.id })).items;
  await sam.timeline.refile.mutate({ clientId: amelia.id, ids: [record!.id], caseId: kase.id });
  const hold = await live.director.holds.place.mutate({ caseId: kase.id, reason: 'Dispute expected' });
  await live.director.holds.release.mutate({ holdId: hold.id });
  await sam.cases.setStatus.mutate({ caseId: kase.id, status: 'closed' });

  await sam.inbox.assign.mutate({ clientId: amelia.id, userId: samId });
  await sam.clients.setResponsible.mutate({ clientId: amelia.id, userId: samId });
  await sam.inbox.setState.mutate({ clientId: amelia.id, state: 'snoozed', snoozeUntil: new Date(Date.now() + 3_600_000) });
  // The snooze ends now: the server reopens the conversation (its own SQL writes that event).
  await sql(live.server.databaseUrl, "UPDATE conversation_states SET snoozed_until = now() - interval '1 minute' WHERE thread_key = $1", [
    `client-${amelia.id}`,
  ]);
  await expect.poll(async () => (await sam.inbox.threadSummary.query({ clientId: amelia.id }))?.state, { timeout: 10_000 }).toBe('open');

  const inAnHour = new Date(Date.now() + 3_600_000);
  const { id } = await sam.chat.schedule.mutate({ clientId: amelia.id, body: 'Your appointment is tomorrow', sendAt: inAnHour });
  await sam.chat.editScheduled.mutate({ id, body: 'Your appointment is on Friday' });
  await sam.chat.reschedule.mutate({ id, sendAt: new Date(inAnHour.getTime() + 3_600_000) });
  await sam.chat.cancelScheduled.mutate({ id });

  const exported = await get(`/api/export/client/${amelia.id}.json`);
  expect(exported.status).toBe(200);
  const verified = await fetch(`${live.server.url}/api/export/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream', cookie: directorCookie },
    body: new Uint8Array(await exported.arrayBuffer()),
  });
  expect(verified.status).toBe(200);
}

/** A wall around a matter someone held: restricting it lets go of what they held. */
async function aWall(): Promise<void> {
  const dee = live.director;
  const [deeId, samId] = [await userId('dee@firm.test'), await userId('sam@firm.test')];
  const vanta = await dee.clients.create.mutate({ name: 'Vanta Holdings', phone: '+447700900321' });
  await inbound('447700900321', 'About the merger');
  await dee.inbox.assign.mutate({ clientId: vanta.id, userId: samId });
  await dee.clients.setResponsible.mutate({ clientId: vanta.id, userId: samId });
  await dee.access.addMember.mutate({ clientId: vanta.id, userId: deeId });
  await dee.access.setRestricted.mutate({ clientId: vanta.id, restricted: true });
  await expect(live.staff.clients.get.query({ clientId: vanta.id })).rejects.toThrow();
  await dee.access.screen.mutate({ clientId: vanta.id, userId: samId, reason: 'Acted for the other side' });
  await dee.access.unscreen.mutate({ clientId: vanta.id, userId: samId });
  await dee.access.setRestricted.mutate({ clientId: vanta.id, restricted: false });
  await dee.access.removeMember.mutate({ clientId: vanta.id, userId: deeId });
}

/** Records: a file read, an erasure carried out and one refused, and the trail verified. */
async function records(): Promise<void> {
  const dee = live.director;
  const erased = await makeOldMatter(live.server.databaseUrl, 'Erin Erased', 1);
  expect((await get(`/api/media/${erased.fileId}`)).status).toBe(200);
  const request = await dee.erasure.request.mutate({ clientId: erased.clientId, receivedAt: new Date(), note: 'By email' });
  const { batchId } = await dee.erasure.decide.mutate({ requestId: request.id, decision: 'erase' });
  // Run here rather than waited for (the server's own poller may take it first: either way it ends done).
  await runApprovedBatch(createLogger('silent'));
  await expect.poll(async () => (await dee.retention.batch.query({ batchId: batchId! })).state, { timeout: 15_000 }).toBe('done');

  const kept = await makeOldMatter(live.server.databaseUrl, 'Kim Kept', 1);
  const refused = await dee.erasure.request.mutate({ clientId: kept.clientId, receivedAt: new Date(), note: '' });
  await dee.erasure.decide.mutate({ requestId: refused.id, decision: 'refuse', grounds: 'legal_claims' });
  await dee.audit.verify.query();
}

/** Two-step sign-in: an authenticator app set up, a sign-in with a wrong and a right code, new recovery codes, removed. */
async function twoStepSignIn(): Promise<void> {
  // Someone of their own: removing the app ends the person's other sessions.
  const person = { email: 'tess@firm.test', password: 'a long enough password' };
  await live.director.users.add.mutate({ name: 'Tess Two-Step', email: person.email, role: 'staff', password: person.password });
  const { client } = createHttpClient(live.server.url);
  await client.auth.signIn.mutate(person);
  const { secret, recoveryCodes } = await enrolTotp(client);
  const second = createHttpClient(live.server.url).client;
  const answer = await second.auth.signIn.mutate(person);
  if (!('ticket' in answer)) throw new Error('expected a second step');
  await expect(second.auth.completeSignIn.mutate({ ticket: answer.ticket, recoveryCode: 'not-a-code' })).rejects.toThrow();
  await second.auth.completeSignIn.mutate({ ticket: answer.ticket, code: await codeAt(secret, new Date(), 1) });
  await second.auth.stepUp.mutate({ recoveryCode: recoveryCodes[0]! });
  await client.auth.mfa.regenerateRecoveryCodes.mutate();
  await client.auth.mfa.remove.mutate({ method: 'totp' });
}

// Recorded only when a send whose answer was lost is matched to its receipt (tests/integration/receipt-adoption.test.ts).
const NOT_DRIVEN_HERE: TAuditAction[] = [
  'chat.reconciled',
  // Need a passkey answer signed by an authenticator: written, and their detail pinned, in tests/integration/passkeys.test.ts.
  'auth.passkey_add',
  'auth.passkey_remove',
];

/** The firm's wording, edited by a director (server/wording/README.md "Firm wording"). */
async function firmWording(): Promise<void> {
  const dee = live.director;
  const added = await dee.wording.add.mutate({ title: 'Audit wording', body: 'Hello {{client.firstName}}' });
  await dee.wording.update.mutate({ id: added.id, title: 'Audit wording, renamed', body: 'Hello again' });
  await dee.wording.remove.mutate({ id: added.id });
}

/** The firm's business numbers, managed by a director (server/numbers/README.md "Several numbers"). */
async function firmNumbers(): Promise<void> {
  const dee = live.director;
  const added = await dee.numbers.add.mutate({ phone: '+44 113 496 0222', label: 'Leeds office', apiKey: 'audit-leeds-key-0123' });
  await dee.numbers.update.mutate({ id: added.id, label: 'Leeds', apiKey: 'audit-leeds-key-4567' });
  await dee.numbers.deactivate.mutate({ id: added.id });
}

/** A client's old chat imported from a phone's export (server/imports/README.md "History from the phone"). */
async function phoneImport(): Promise<void> {
  const client = await live.director.clients.create.mutate({ name: 'Ida Import', phone: '+447700900777' });
  const form = new FormData();
  form.append('file', new Blob(['12/02/2026, 09:06 - Ida Import: Hello\n12/02/2026, 09:07 - Dee Director: Hello Ida\n']), 'chat.txt');
  const res = await fetch(`${live.server.url}/api/imports/whatsapp`, {
    method: 'POST',
    headers: { cookie: live.staffCookie, origin: live.server.url },
    body: form,
  });
  const { importId } = (await res.json()) as { importId: string };
  await live.staff.imports.commit.mutate({ importId, clientId: client.id, firmParticipants: ['Dee Director'] });
}

it('every event the firm’s actions write parses with its action’s schema', async () => {
  await signInsAndPeople();
  await twoStepSignIn();
  await aClientsDay();
  await aWall();
  await records();
  await firmWording();
  await firmNumbers();
  await phoneImport();

  const rows = await sql<{ id: string; action: TAuditAction; detail: unknown }>(
    live.server.databaseUrl,
    'SELECT id::text, action, detail FROM audit_events ORDER BY id',
  );
  const unreadable = rows.flatMap((row) => {
    const parsed = parseAuditDetail(row.action, row.detail);
    return parsed.success ? [] : [`#${row.id} ${row.action} ${JSON.stringify(row.detail)}: ${z.prettifyError(parsed.error)}`];
  });
  expect(unreadable).toEqual([]);
  expect(new Set(rows.map((row) => row.action))).toEqual(new Set(AUDIT_ACTIONS.filter((action) => !NOT_DRIVEN_HERE.includes(action))));
});
