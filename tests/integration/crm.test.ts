import { TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppRouter } from '../../server/app/app-router';
import { Communication } from '../../server/core/db/models/index';
import { createHttpClient, signInNewStaff, startTestServer, type TTestServer } from '../support/test-server';

let server: TTestServer;
let staff: ReturnType<typeof createHttpClient>['client'];

beforeAll(async () => {
  server = await startTestServer();
  staff = await signInNewStaff(server);
});
afterAll(() => server?.stop());

describe('health', () => {
  it('reports mode and database state', async () => {
    const res = await fetch(`${server.url}/api/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, mode: 'demo', db: 'up', sso: false });
  });
});

describe('clients and cases', () => {
  it('anonymous callers are refused', async () => {
    const anonymous = createHttpClient(server.url).client;
    await expect(anonymous.clients.list.query()).rejects.toMatchObject({ data: { code: 'UNAUTHORIZED' } });
  });

  it('creates a client from a number in any common format and finds it by name or digits', async () => {
    const created = await staff.clients.create.mutate({ name: 'Amelia Hart', phone: '+44 7700-900 123' });
    expect(created).toMatchObject({ name: 'Amelia Hart', phone: '+447700900123', numbers: [{ digits: '447700900123', primary: true }] });
    await staff.clients.create.mutate({ name: 'Benedict Okafor', phone: '0044 7700 900456' });
    expect((await staff.clients.list.query({ search: 'amel' })).map((c) => c.name)).toEqual(['Amelia Hart']);
    expect((await staff.clients.list.query({ search: '900456' })).map((c) => c.name)).toEqual(['Benedict Okafor']);
    expect((await staff.clients.list.query({ search: '%' })).map((c) => c.name)).toEqual([]);
  });

  it('refuses an impossible number with a field message naming the format expected', async () => {
    const error = await staff.clients.create.mutate({ name: 'Bad', phone: '12-34' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TRPCClientError);
    const data = (error as TRPCClientError<AppRouter>).data!;
    expect(data.code).toBe('BAD_REQUEST');
    expect(data.fieldErrors?.phone?.[0]).toMatch(
      /with its country code, such as \+44 7700 900123, or as a national number \(United Kingdom\)/,
    );
  });

  it('creates a case for a client and refuses a duplicate reference with CONFLICT', async () => {
    const client = await staff.clients.create.mutate({ name: 'Chloe Martin', phone: '07700 900789' });
    const created = await staff.cases.create.mutate({ clientId: client.id, reference: 'MART-1', title: 'Purchase' });
    expect(created).toMatchObject({ clientId: client.id, reference: 'MART-1', status: 'open' });
    await expect(staff.cases.create.mutate({ clientId: client.id, reference: 'MART-1', title: 'Again' })).rejects.toMatchObject({
      data: { code: 'CONFLICT' },
    });
    await expect(staff.cases.create.mutate({ clientId: 999_999, reference: 'X-1', title: 'x' })).rejects.toMatchObject({
      data: { code: 'NOT_FOUND' },
    });
  });
});

describe('timelines', () => {
  it('list every record type for the client and the case, newest first', async () => {
    const client = await staff.clients.create.mutate({ name: 'Daniel Reyes', phone: '+44 7700 900555' });
    const other = await staff.clients.create.mutate({ name: 'Someone Else', phone: '+44 7700 900999' });
    const kase = await staff.cases.create.mutate({ clientId: client.id, reference: 'REY-1', title: 'Lease' });
    const base = Date.now();
    const at = (minutesAgo: number) => new Date(base - minutesAgo * 60_000);
    await Communication.bulkCreate([
      { type: 'note', direction: null, status: null, clientId: client.id, caseId: kase.id, body: 'oldest note', createdAt: at(30) },
      { type: 'email', direction: 'outbound', status: null, clientId: client.id, body: 'email', createdAt: at(20) },
      {
        type: 'chat',
        direction: 'inbound',
        status: null,
        clientId: client.id,
        caseId: kase.id,
        body: 'chat in',
        peerPhone: '447700900555',
        metadata: { chat_msg_id: 'wamid.t1' },
        createdAt: at(10),
      },
      { type: 'call', direction: 'inbound', status: null, clientId: client.id, body: 'call', createdAt: at(5) },
      { type: 'chat', direction: 'outbound', status: 'read', clientId: other.id, body: 'not theirs', createdAt: at(1) },
    ]);
    const timeline = await staff.timeline.client.query({ clientId: client.id });
    expect(timeline.items.map((i) => i.body)).toEqual(['call', 'chat in', 'email', 'oldest note']);
    expect(timeline.items[1]).toMatchObject({
      type: 'chat',
      direction: 'inbound',
      peerPhone: '447700900555',
      metadata: { chat_msg_id: 'wamid.t1' },
    });
    expect(timeline.items[1]?.createdAt).toBeInstanceOf(Date);
    const caseTimeline = await staff.timeline.case.query({ caseId: kase.id });
    expect(caseTimeline.items.map((i) => i.body)).toEqual(['chat in', 'oldest note']);
    await expect(staff.timeline.client.query({ clientId: 424242 })).rejects.toMatchObject({ data: { code: 'NOT_FOUND' } });
  });
});

describe('errors', () => {
  it('error responses carry no stack trace', async () => {
    const res = await fetch(`${server.url}/trpc/clients.list?input=${encodeURIComponent('{"json":{"search":"x"}}')}`);
    const body = (await res.json()) as { error: { json: { data: Record<string, unknown> } } };
    expect(res.status).toBe(401);
    expect(body.error.json.data.stack).toBeUndefined();
  });

  it('unknown API paths answer 404 JSON', async () => {
    const res = await fetch(`${server.url}/api/nope`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'There is nothing at this address.' } });
  });
});
