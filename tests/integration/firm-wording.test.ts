import { TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppRouter } from '../../server/app/app-router';
import { createClient } from '../../server/crm/clients';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';
import { sql } from '../support/webhook';

// server/wording/README.md "Firm wording": everyone reads the firm's wording, directors edit it, each
// change on the trail by its title; and a director's team view of scheduled messages.

let live: TLiveSetup;
beforeAll(async () => {
  live = await startLiveSetup();
});
afterAll(() => live?.stop());

const codeOf = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TRPCClientError);
  return error as TRPCClientError<AppRouter>;
};

describe('the firm’s wording', () => {
  it('starts with the built-in list, the client’s first name as {{client.firstName}}', async () => {
    const list = await live.staff.wording.list.query();
    expect(list.map((w) => w.title)).toEqual([
      'Appointment reminder',
      'Document request',
      'Hearing date',
      'Payment reminder',
      'Please call us',
      'Message received',
    ]);
    expect(list.every((w) => w.body.includes('{{client.firstName}}') && !w.body.includes('{{client_name}}'))).toBe(true);
    expect(list[0]!.updatedBy).toBeNull();
  });

  it('a director adds, edits and removes it, trimmed, each change audited by its title and never its body', async () => {
    const dee = live.director;
    const added = await dee.wording.add.mutate({ title: '  Bring ID  ', body: ' Hello {{client.firstName}}, please bring photo ID. ' });
    expect(added).toMatchObject({
      title: 'Bring ID',
      body: 'Hello {{client.firstName}}, please bring photo ID.',
      updatedBy: { name: 'Dee Director' },
    });
    expect((await live.staff.wording.list.query()).at(-1)).toMatchObject({ id: added.id, title: 'Bring ID' });

    const renamed = await dee.wording.update.mutate({ id: added.id, title: 'Bring your ID' });
    expect(renamed).toMatchObject({ title: 'Bring your ID', body: added.body });
    const rewritten = await dee.wording.update.mutate({ id: added.id, body: 'Please bring photo ID, {{client.firstName}}.' });
    expect(rewritten.body).toBe('Please bring photo ID, {{client.firstName}}.');
    // A change that changes nothing writes nothing.
    await dee.wording.update.mutate({ id: added.id, title: 'Bring your ID' });
    await dee.wording.remove.mutate({ id: added.id });
    expect((await live.staff.wording.list.query()).some((w) => w.id === added.id)).toBe(false);

    const events = await sql<{ action: string; subject: string; detail: Record<string, unknown> }>(
      live.server.databaseUrl,
      `SELECT action, subject, detail FROM audit_events WHERE action LIKE 'wording.%' AND (detail->>'wordingId')::int = $1 ORDER BY id`,
      [added.id],
    );
    expect(events).toEqual([
      { action: 'wording.add', subject: 'wording', detail: { wordingId: added.id, title: 'Bring ID' } },
      {
        action: 'wording.update',
        subject: 'wording',
        detail: { wordingId: added.id, title: 'Bring your ID', from: 'Bring ID', changed: ['title'] },
      },
      { action: 'wording.update', subject: 'wording', detail: { wordingId: added.id, title: 'Bring your ID', changed: ['body'] } },
      { action: 'wording.remove', subject: 'wording', detail: { wordingId: added.id, title: 'Bring your ID' } },
    ]);
    expect(JSON.stringify(events)).not.toContain('photo ID');
  });

  it('refuses staff (FORBIDDEN) and bad input with a field error', async () => {
    const [first] = await live.staff.wording.list.query();
    expect((await codeOf(live.staff.wording.add.mutate({ title: 'Mine', body: 'Hello' }))).data?.code).toBe('FORBIDDEN');
    expect((await codeOf(live.staff.wording.update.mutate({ id: first!.id, title: 'Mine' }))).data?.code).toBe('FORBIDDEN');
    expect((await codeOf(live.staff.wording.remove.mutate({ id: first!.id }))).data?.code).toBe('FORBIDDEN');

    const blank = await codeOf(live.director.wording.add.mutate({ title: '   ', body: 'Hello' }));
    expect(blank.data?.code).toBe('BAD_REQUEST');
    expect(blank.data?.fieldErrors).toEqual({ title: ['Give it a title'] });
    const long = await codeOf(live.director.wording.add.mutate({ title: 'Long', body: 'x'.repeat(4097) }));
    expect(long.data?.fieldErrors).toEqual({ body: ['The wording can be at most 4096 characters'] });
    const titleLong = await codeOf(live.director.wording.update.mutate({ id: first!.id, title: 't'.repeat(81) }));
    expect(titleLong.data?.fieldErrors).toEqual({ title: ['A title can be at most 80 characters'] });
    // A placeholder the composer does not fill would reach a client as typed: refused, named.
    const typo = await codeOf(
      live.director.wording.add.mutate({ title: 'Typo', body: 'Hello {{client.first_name}}, see {{ firm_name }}' }),
    );
    expect(typo.data?.fieldErrors).toEqual({
      body: ['{{client.first_name}} is not a placeholder: use those listed above, or write the words out'],
    });
    const two = await codeOf(live.director.wording.update.mutate({ id: first!.id, body: '{{name}} and {{date}}' }));
    expect(two.data?.fieldErrors).toEqual({
      body: ['{{name}}, {{date}} are not placeholders: use those listed above, or write the words out'],
    });
    for (const [body, message] of [
      ['Hello {{client.firstName}', 'A placeholder’s braces do not match: write it with two on each side, such as {{client.firstName}}'],
      ['Hello {client.firstName}', '{client.firstName} needs two braces on each side: {{client.firstName}}'],
    ] as const)
      expect((await codeOf(live.director.wording.add.mutate({ title: 'Typo', body }))).data?.fieldErrors).toEqual({ body: [message] });
    expect((await live.director.wording.list.query()).some((w) => w.title === 'Typo')).toBe(false);
    // One title, one wording: the picker lists them by title.
    const taken = await codeOf(live.director.wording.add.mutate({ title: first!.title.toUpperCase(), body: 'Hello' }));
    expect(taken.data).toMatchObject({ code: 'CONFLICT', fieldErrors: { title: ['another wording has this title'] } });
    const gone = await codeOf(live.director.wording.remove.mutate({ id: 999_999 }));
    expect(gone.data?.code).toBe('NOT_FOUND');
    expect((await live.staff.wording.list.query())[0]).toEqual(first);
  });
});

describe('scheduled messages, for the team', () => {
  it('a director lists everyone’s with each author’s name; staff are refused the flag', async () => {
    const client = await createClient({ name: 'Amelia Hart', phone: '+44 7700 900123' });
    const sendAt = new Date(Date.now() + 3_600_000);
    const sams = await live.staff.chat.schedule.mutate({ clientId: client.id, body: 'Sam’s reminder', sendAt });
    const dees = await live.director.chat.schedule.mutate({ clientId: client.id, body: 'Dee’s reminder', sendAt });

    expect((await live.director.chat.scheduled.query({})).map((s) => s.id)).toEqual([dees.id]);
    const everyone = await live.director.chat.scheduled.query({ everyone: true });
    expect(everyone.map((s) => [s.id, s.author.name])).toEqual([
      [sams.id, 'Sam Staff'],
      [dees.id, 'Dee Director'],
    ]);
    expect((await codeOf(live.staff.chat.scheduled.query({ everyone: true }))).data?.code).toBe('FORBIDDEN');
    expect((await live.staff.chat.scheduled.query({ everyone: false })).map((s) => s.id)).toEqual([sams.id]);
  });
});
