import { TRPCClientError } from '@trpc/client';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppRouter } from '../../server/app/app-router';
import { createUser } from '../../server/auth/users';
import { createHttpClient, startTestServer, type TTestServer } from '../support/test-server';
import { signedInUser } from '../support/sign-in-answer';

let server: TTestServer;

beforeAll(async () => {
  server = await startTestServer();
  await createUser({ email: 'dee@firm.test', name: 'Dee Director', role: 'director', password: 'director-password' });
  await createUser({ email: 'sam@firm.test', name: 'Sam Staff', role: 'staff', password: 'staff-password' });
});
afterAll(() => server?.stop());

async function errorOf(promise: Promise<unknown>): Promise<{ code?: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof TRPCClientError) return { code: (error as TRPCClientError<AppRouter>).data?.code, message: error.message };
    throw error;
  }
  throw new Error('expected the call to fail');
}

describe('sign-in', () => {
  it('when the password is wrong, answers UNAUTHORIZED with the same message as an unknown email', async () => {
    const { client } = createHttpClient(server.url);
    const wrongPassword = await errorOf(client.auth.signIn.mutate({ email: 'sam@firm.test', password: 'nope-nope-nope' }));
    const unknownEmail = await errorOf(client.auth.signIn.mutate({ email: 'nobody@firm.test', password: 'nope-nope-nope' }));
    expect(wrongPassword.code).toBe('UNAUTHORIZED');
    expect(unknownEmail).toEqual(wrongPassword);
  });

  it('when the credentials are right, sets an httpOnly SameSite=Lax session cookie and me returns the user', async () => {
    const { client, lastSetCookies } = createHttpClient(server.url);
    const user = signedInUser(await client.auth.signIn.mutate({ email: 'SAM@firm.test ', password: 'staff-password' }));
    expect(user).toMatchObject({ email: 'sam@firm.test', role: 'staff' });
    const cookie = lastSetCookies.find((c) => c.startsWith('firm_chat_session='));
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).not.toMatch(/Secure/i);
    expect(await client.auth.me.query()).toMatchObject({ email: 'sam@firm.test' });
  });

  it('when input is invalid, answers BAD_REQUEST with field messages', async () => {
    const { client } = createHttpClient(server.url);
    const error = await client.auth.signIn.mutate({ email: '', password: '' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TRPCClientError);
    const data = (error as TRPCClientError<AppRouter>).data!;
    expect(data.code).toBe('BAD_REQUEST');
    expect(data.fieldErrors?.email).toEqual(['Enter your email']);
    expect(data.fieldErrors?.password).toEqual(['Enter your password']);
  });

  it('issues a new session id on every sign-in and forgets the old one', async () => {
    const { client, jar } = createHttpClient(server.url);
    await client.auth.signIn.mutate({ email: 'sam@firm.test', password: 'staff-password' });
    const first = jar.get('firm_chat_session');
    await client.auth.signIn.mutate({ email: 'sam@firm.test', password: 'staff-password' });
    const second = jar.get('firm_chat_session');
    expect(second).toBeTruthy();
    expect(second).not.toBe(first);
    const replay = createHttpClient(server.url);
    replay.jar.set('firm_chat_session', first!);
    expect(await replay.client.auth.me.query()).toBeNull();
  });

  it('sign-out deletes the session on the server, so a copied cookie stops working', async () => {
    const { client, jar } = createHttpClient(server.url);
    await client.auth.signIn.mutate({ email: 'sam@firm.test', password: 'staff-password' });
    const stolen = createHttpClient(server.url);
    stolen.jar.set('firm_chat_session', jar.get('firm_chat_session')!);
    expect(await stolen.client.auth.me.query()).not.toBeNull();
    await client.auth.signOut.mutate();
    expect(await stolen.client.auth.me.query()).toBeNull();
    expect((await errorOf(stolen.client.clients.list.query())).code).toBe('UNAUTHORIZED');
  });

  it('refuses an expired session', async () => {
    const { client } = createHttpClient(server.url);
    await client.auth.signIn.mutate({ email: 'sam@firm.test', password: 'staff-password' });
    expect(await client.clients.list.query()).toEqual([]);
    const db = new pg.Client({ connectionString: server.databaseUrl });
    await db.connect();
    await db.query("UPDATE sessions SET expires_at = now() - interval '1 second'");
    await db.end();
    expect(await client.auth.me.query()).toBeNull();
    expect((await errorOf(client.clients.list.query())).code).toBe('UNAUTHORIZED');
  });
});

describe('roles', () => {
  it('staff calling a director procedure get FORBIDDEN; directors get the answer; anonymous get UNAUTHORIZED', async () => {
    const anonymous = createHttpClient(server.url);
    expect((await errorOf(anonymous.client.users.list.query())).code).toBe('UNAUTHORIZED');

    const staff = createHttpClient(server.url);
    await staff.client.auth.signIn.mutate({ email: 'sam@firm.test', password: 'staff-password' });
    expect((await errorOf(staff.client.users.list.query())).code).toBe('FORBIDDEN');

    const director = createHttpClient(server.url);
    await director.client.auth.signIn.mutate({ email: 'dee@firm.test', password: 'director-password' });
    const users = await director.client.users.list.query();
    expect(users.map((u) => u.email).sort()).toEqual(['dee@firm.test', 'sam@firm.test']);
    expect(JSON.stringify(users)).not.toMatch(/scrypt|password/i);
  });
});

describe('stored credentials', () => {
  it('keeps only scrypt hashes and keyed session ids in the database', async () => {
    const { jar, client } = createHttpClient(server.url);
    await client.auth.signIn.mutate({ email: 'dee@firm.test', password: 'director-password' });
    const db = new pg.Client({ connectionString: server.databaseUrl });
    await db.connect();
    const users = await db.query<{ password_hash: string }>('SELECT password_hash FROM users');
    const sessions = await db.query<{ id: string }>('SELECT id FROM sessions');
    await db.end();
    for (const row of users.rows) expect(row.password_hash).toMatch(/^scrypt\$/);
    expect(sessions.rows.map((r) => r.id)).not.toContain(jar.get('firm_chat_session'));
  });
});
