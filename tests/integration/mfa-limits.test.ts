import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../server/auth/users';
import { codeAt, enrolTotp } from '../support/mfa';
import { sql } from '../support/sql';
import { createHttpClient, startTestServer, type TTestServer } from '../support/test-server';

// Guessing the second step is limited like guessing passwords: each answer is counted per person and
// per address before it is checked, and a fresh ticket (a right password again) gives no fresh
// guesses. A few hundred wrong codes fired at once over HTTP; MFA_GUESSES=10000 measures more
// (in waves of 500).

const LIMITS = { perIp: 30, perAccount: 8 };
const GUESSES = Number(process.env.MFA_GUESSES ?? 200);
/** How many are in flight at once (all of them at the default count). */
const AT_ONCE = 500;
const TICKET_ANSWERS = 5;

let server: TTestServer;
beforeAll(async () => {
  server = await startTestServer({}, undefined, { signInLimits: LIMITS });
});
afterAll(() => server?.stop());

let people = 0;
let addresses = 0;
/** A new address each time, so gathering tickets spends no one address's limit. */
const freshIp = () => `10.${Math.floor(++addresses / 62_500) + 1}.${Math.floor(addresses / 250) % 250}.${addresses % 250}`;

async function enrolledPerson() {
  const email = `guess${++people}@firm.test`;
  const password = `password-${people}-long`;
  const user = await createUser({ email, name: `Person ${people}`, role: 'staff', password });
  const { client } = createHttpClient(server.url, { 'x-forwarded-for': freshIp() });
  await client.auth.signIn.mutate({ email, password });
  const { secret } = await enrolTotp(client);
  return { id: user.id, email, password, secret };
}

async function ticketOf(person: { email: string; password: string }): Promise<string> {
  const { client } = createHttpClient(server.url, { 'x-forwarded-for': freshIp() });
  const answer = await client.auth.signIn.mutate({ email: person.email, password: person.password });
  if (!('ticket' in answer)) throw new Error('expected a second step');
  return answer.ticket;
}

/** One answer over HTTP from `ip`: its status. */
async function answer(ip: string, body: Record<string, string>): Promise<number> {
  const res = await fetch(`${server.url}/trpc/auth.completeSignIn`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
    body: JSON.stringify({ json: body }),
  });
  await res.arrayBuffer();
  return res.status;
}

/** A 6-digit code that is not the person's at any step the server accepts now. */
async function wrongCodes(secret: string, n: number): Promise<string[]> {
  const right = new Set(await Promise.all([-1, 0, 1].map((step) => codeAt(secret, new Date(), step))));
  const codes: string[] = [];
  for (let i = 0; codes.length < n; i++) {
    const code = String((i * 7919 + 13) % 1_000_000).padStart(6, '0');
    if (!right.has(code)) codes.push(code);
  }
  return codes;
}

const checkedWrong = async (email: string) =>
  (
    await sql<{ n: number }>(
      server.databaseUrl,
      `SELECT count(*)::int AS n FROM audit_events WHERE action = 'auth.sign_in_failed' AND subject = $1 AND detail->>'reason' IN ('wrong_code', 'wrong_recovery_code')`,
      [`email:${email}`],
    )
  )[0]!.n;

describe('guessing codes', () => {
  it(
    `checks at most the per-person limit of ${GUESSES} wrong codes fired at once, across fresh tickets, from many addresses`,
    async () => {
      const person = await enrolledPerson();
      const codes = await wrongCodes(person.secret, GUESSES);
      const statuses: number[] = [];
      let firingMs = 0;
      for (let from = 0; from < GUESSES; from += AT_ONCE) {
        // Each wave's tickets just before it: a ticket lives 5 minutes.
        const wave = codes.slice(from, from + AT_ONCE);
        const tickets: string[] = [];
        for (let t = 0; t < Math.ceil(wave.length / TICKET_ANSWERS); t++) tickets.push(await ticketOf(person));
        const started = performance.now();
        statuses.push(
          ...(await Promise.all(wave.map((code, i) => answer(freshIp(), { ticket: tickets[Math.floor(i / TICKET_ANSWERS)]!, code })))),
        );
        firingMs += performance.now() - started;
      }
      const refused = statuses.filter((s) => s === 429).length;
      const checked = await checkedWrong(person.email);
      console.info(
        `${GUESSES} wrong codes for one person, ${AT_ONCE} at a time: ${checked} checked, ${refused} refused (429), ${GUESSES - checked - refused} other; answered in ${Math.round(firingMs)} ms`,
      );
      expect(checked).toBeLessThanOrEqual(LIMITS.perAccount);
      expect(statuses.filter((s) => s === 401)).toHaveLength(checked);
      expect(refused).toBe(GUESSES - checked);

      // A right password again gives a fresh ticket, not fresh guesses: even the right code waits.
      const fresh = await ticketOf(person);
      expect(await answer(freshIp(), { ticket: fresh, code: await codeAt(person.secret) })).toBe(429);
    },
    Math.max(30_000, GUESSES * 100),
  );

  it('counts answers per address too, across people', async () => {
    const ip = '10.200.0.1';
    const group = [];
    for (let i = 0; i < 6; i++) group.push(await enrolledPerson());
    const shots = [];
    for (const person of group) {
      const tickets = [await ticketOf(person), await ticketOf(person)];
      for (let i = 0; i < 2 * TICKET_ANSWERS; i++)
        shots.push({ ticket: tickets[Math.floor(i / TICKET_ANSWERS)]!, recoveryCode: `guess-${i}` });
    }
    const statuses = await Promise.all(shots.map((body) => answer(ip, body)));
    const checked = (await Promise.all(group.map((p) => checkedWrong(p.email)))).reduce((a, b) => a + b, 0);
    expect(checked).toBeLessThanOrEqual(LIMITS.perIp);
    expect(statuses.filter((s) => s === 401)).toHaveLength(checked);
    expect(statuses.filter((s) => s === 429)).toHaveLength(shots.length - checked);
  });
});
