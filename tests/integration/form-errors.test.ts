import { TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Case, Client, ClientNumber } from '../../server/core/db/models/index';
import type { AppRouter } from '../../server/app/app-router';
import { createHttpClient, signInNewStaff, startTestServer, type TTestServer } from '../support/test-server';
import { match } from '../support/matchers';

// A refused form comes back with every field's message at once, each written for
// people, so the form can show them all beside their fields in one go.

let server: TTestServer;
let staff: ReturnType<typeof createHttpClient>['client'];

beforeAll(async () => {
  server = await startTestServer();
  staff = await signInNewStaff(server);
});
afterAll(() => server?.stop());

/** The refusal's code and each field's messages (fails the test if the call succeeds). */
async function refusalOf(
  call: Promise<unknown>,
): Promise<{ code: string | undefined; message: string; fieldErrors: Record<string, string[] | undefined> }> {
  const error = await call.then(
    () => expect.fail('expected the server to refuse this input'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TRPCClientError);
  const data = (error as TRPCClientError<AppRouter>).data;
  return { code: data?.code, message: (error as Error).message, fieldErrors: data?.fieldErrors ?? {} };
}

// What a schema library says when nobody wrote the message: never shown to a person.
const MACHINE_WORDING = /invalid input|expected|received|too (big|small)|nan|undefined/i;

function expectWrittenForPeople(fieldErrors: Record<string, string[] | undefined>): void {
  for (const [field, messages] of Object.entries(fieldErrors)) {
    for (const message of messages ?? []) expect(message, `the ${field} message`).not.toMatch(MACHINE_WORDING);
  }
}

describe('adding a client', () => {
  it('with a name too long, an impossible number and a malformed email, answers every field at once', async () => {
    const before = await Client.count();
    const refused = await refusalOf(staff.clients.create.mutate({ name: 'N'.repeat(201), phone: '12-34', email: 'amelia-at-example' }));
    expect(refused.code).toBe('BAD_REQUEST');
    expect(refused.fieldErrors).toEqual({
      name: ['Name is too long — 200 characters at most'],
      phone: [
        'That is not a possible phone number. Enter it with its country code, such as +44 7700 900123, or as a national number (United Kingdom).',
      ],
      email: ['Enter an email address such as name@example.com, or leave it empty'],
    });
    expect(await Client.count()).toBe(before);
  });

  it('with nothing typed, asks for the name and the number together', async () => {
    const refused = await refusalOf(staff.clients.create.mutate({ name: '  ', phone: '' }));
    expect(refused.fieldErrors).toEqual({ name: ["Enter the client's name"], phone: ['Enter a phone number'] });
  });

  it("with a number too long to be one, says so once (not also that it is impossible) beside the name's message", async () => {
    const refused = await refusalOf(staff.clients.create.mutate({ name: '', phone: '+44 7700 900123 0000 0000 0000 0000 0000 0' }));
    expect(refused.fieldErrors).toEqual({ name: ["Enter the client's name"], phone: ['That number is too long — 40 characters at most'] });
  });

  it('with every field right but the number, names only the number', async () => {
    const refused = await refusalOf(staff.clients.create.mutate({ name: 'Ines Ortega', phone: 'call me' }));
    expect(Object.keys(refused.fieldErrors)).toEqual(['phone']);
    expectWrittenForPeople(refused.fieldErrors);
  });
});

describe('adding a number to a client', () => {
  it('with an impossible number, names the format expected', async () => {
    const client = await staff.clients.create.mutate({ name: 'Olu Bello', phone: '+44 7700 900611' });
    const refused = await refusalOf(staff.clients.addNumber.mutate({ clientId: client.id, phone: '+44 12' }));
    expect(refused.code).toBe('BAD_REQUEST');
    expect(refused.fieldErrors).toEqual({
      phone: [match.stringMatching(/^That is not a possible phone number\. Enter it with its country code/)],
    });
  });

  it("typed in another country's national format, is refused naming the firm's country; with its country code, it is added", async () => {
    const client = await staff.clients.create.mutate({ name: 'Rosa Lind', phone: '+44 7700 900614' });
    const refused = await refusalOf(staff.clients.addNumber.mutate({ clientId: client.id, phone: '(415) 555-0199' }));
    expect(refused.code).toBe('BAD_REQUEST');
    expect(refused.fieldErrors).toEqual({
      phone: ['That is not a valid number in the United Kingdom. Enter it with its country code, such as +1 415 555 0199.'],
    });
    expect(await ClientNumber.count({ where: { clientId: client.id } })).toBe(1);
    const added = await staff.clients.addNumber.mutate({ clientId: client.id, phone: '+1 415 555 0199' });
    expect(added.numbers.map((n) => n.digits)).toEqual(match.arrayContaining(['14155550199']));
  });

  it('to a client id no record can have, reports the id and the number together', async () => {
    const refused = await refusalOf(staff.clients.addNumber.mutate({ clientId: 2 ** 31, phone: '12' }));
    expect(refused.fieldErrors).toEqual({
      clientId: ['No record has that id.'],
      phone: [match.stringMatching(/not a possible phone number/)],
    });
  });
});

describe('opening a case', () => {
  it('with no reference and a title too long, answers both fields at once', async () => {
    const client = await staff.clients.create.mutate({ name: 'Priya Nair', phone: '+44 7700 900612' });
    const before = await Case.count();
    const refused = await refusalOf(staff.cases.create.mutate({ clientId: client.id, reference: ' ', title: 'T'.repeat(201) }));
    expect(refused.code).toBe('BAD_REQUEST');
    expect(refused.fieldErrors).toEqual({
      reference: ['Enter a reference, such as ABC-2026-001'],
      title: ['Title is too long — 200 characters at most'],
    });
    expect(await Case.count()).toBe(before);
  });

  it('with a reference another case has, says so beside the reference', async () => {
    const client = await staff.clients.create.mutate({ name: 'Quentin Shaw', phone: '+44 7700 900613' });
    await staff.cases.create.mutate({ clientId: client.id, reference: 'SHAW-1', title: 'Lease' });
    const refused = await refusalOf(staff.cases.create.mutate({ clientId: client.id, reference: 'SHAW-1', title: 'Another lease' }));
    expect(refused.code).toBe('CONFLICT');
    expect(refused.fieldErrors).toEqual({ reference: ["SHAW-1 is already another case's reference. Choose a different one."] });
  });
});

describe('signing in', () => {
  it('with an email too long and no password, answers both fields at once', async () => {
    const { client } = createHttpClient(server.url);
    const refused = await refusalOf(client.auth.signIn.mutate({ email: `${'a'.repeat(320)}@firm.test`, password: '' }));
    expect(refused.code).toBe('BAD_REQUEST');
    expect(refused.fieldErrors).toEqual({ email: ['Email is too long — 320 characters at most'], password: ['Enter your password'] });
  });

  it('with a wrong password, answers for the form, not for a field (no hint which one was wrong)', async () => {
    const { client } = createHttpClient(server.url);
    const refused = await refusalOf(client.auth.signIn.mutate({ email: 'sam@firm.test', password: 'not-the-password' }));
    expect(refused).toEqual({ code: 'UNAUTHORIZED', message: 'Email or password is incorrect.', fieldErrors: {} });
  });
});
