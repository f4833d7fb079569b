import { TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppRouter } from '../../server/app/app-router';
import { createClient } from '../../server/crm/clients';
import { createUser } from '../../server/auth/users';
import { sql } from '../support/sql';
import { createHttpClient, startTestServer, type TTestServer } from '../support/test-server';

// A name is read by people (lists, the audit trail, exports): a character that cannot be seen, or
// turns the text around, makes two names that look the same differ, or one read as another. And
// PostgreSQL cannot hold a NUL at all (Sequelize wrote the two characters `\0` in its place).

let server: TTestServer;
let director: ReturnType<typeof createHttpClient>['client'];
let clientId: number;

beforeAll(async () => {
  server = await startTestServer();
  await createUser({ email: 'dee@firm.test', name: 'Dee Director', role: 'director', password: 'director-password' });
  director = createHttpClient(server.url).client;
  await director.auth.signIn.mutate({ email: 'dee@firm.test', password: 'director-password' });
  clientId = (await createClient({ name: 'Amelia Hart', phone: '+447700900123' })).id;
});
afterAll(() => server?.stop());

const HIDDEN = [
  ['NUL', '\u0000'],
  ['Arabic letter mark', '\u061C'],
  ['zero-width space', '\u200B'],
  ['zero-width non-joiner', '\u200C'],
  ['zero-width joiner', '\u200D'],
  ['word joiner', '\u2060'],
  ['byte order mark', '\uFEFF'],
  ['right-to-left override', '\u202E'],
  ['lone surrogate', '\uD800'],
] as const;

async function fieldErrorsOf(call: Promise<unknown>): Promise<Record<string, string[]> | undefined> {
  const error = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TRPCClientError);
  const data = (error as TRPCClientError<AppRouter>).data!;
  expect(data.code).toBe('BAD_REQUEST');
  return data.fieldErrors;
}

const count = async (table: string) => Number((await sql<{ n: string }>(server.databaseUrl, `SELECT count(*) AS n FROM ${table}`))[0]!.n);
const HIDDEN_MESSAGE = /has a hidden control or text-direction character/;

describe.each(HIDDEN)('a %s in a name is refused with a field error, nothing stored', (_name, character) => {
  it('client name', async () => {
    const before = await count('clients');
    const errors = await fieldErrorsOf(director.clients.create.mutate({ name: `Amelia${character} Hart`, phone: '+447700900999' }));
    expect(errors?.name).toEqual([expect.stringMatching(HIDDEN_MESSAGE)]);
    expect(errors?.phone).toBeUndefined();
    expect(await count('clients')).toBe(before);
  });

  it('case reference and title', async () => {
    const before = await count('cases');
    const errors = await fieldErrorsOf(
      director.cases.create.mutate({ clientId, reference: `HART${character}-2026-009`, title: `Hart v${character} Northwind` }),
    );
    expect(errors?.reference).toEqual([expect.stringMatching(/^The reference has a hidden control/)]);
    expect(errors?.title).toEqual([expect.stringMatching(/^The title has a hidden control/)]);
    expect(await count('cases')).toBe(before);
  });

  it('user name', async () => {
    const before = await count('users');
    const errors = await fieldErrorsOf(
      director.users.add.mutate({ name: `Sam${character} Staff`, email: 'sam@firm.test', role: 'staff', password: 'a long password' }),
    );
    expect(errors?.name).toEqual([expect.stringMatching(HIDDEN_MESSAGE)]);
    expect(await count('users')).toBe(before);
  });
});

it('names in any script, with accents, apostrophes and emoji, are stored as typed', async () => {
  for (const name of ["Zoë O'Brien-Ørsted", 'محمد علي', 'José 😀']) {
    const created = await director.clients.create.mutate({ name, phone: '+447700900888', confirm: true });
    expect(created.name).toBe(name);
  }
  expect(await director.cases.create.mutate({ clientId, reference: 'HART-2026-010', title: 'Zoë v Ørsted' })).toMatchObject({
    title: 'Zoë v Ørsted',
  });
});
