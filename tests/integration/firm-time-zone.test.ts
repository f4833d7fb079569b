import { afterAll, beforeAll, expect, it } from 'vitest';
import { createClient } from '../../server/crm/clients';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';

// The firm has one clock (README.md "Configuration", server/messaging/README.md "Business hours", server/export/README.md "Evidence exports"):
// FIRM_TIME_ZONE until a director saves business hours, then the hours' zone — for the SPA's
// "send later" (settings.businessHours) and for every export's times alike.

let live: TLiveSetup;
let clientId: number;

beforeAll(async () => {
  live = await startLiveSetup({ FIRM_TIME_ZONE: 'America/New_York' });
  clientId = (await createClient({ name: 'Amelia Hart', phone: '+447700900123' })).id;
});
afterAll(() => live?.stop());

async function exportedTimeZone(): Promise<unknown> {
  const res = await fetch(`${live.server.url}/api/export/client/${clientId}.json`, { headers: { cookie: live.staffCookie } });
  expect(res.status).toBe(200);
  return (JSON.parse(await res.text()) as { timeZone?: unknown }).timeZone;
}

it('is FIRM_TIME_ZONE before any business hours are saved, then the zone the director saved', async () => {
  expect(await live.staff.settings.businessHours.query()).toMatchObject({ hoursSet: false, timeZone: 'America/New_York' });
  expect(await exportedTimeZone()).toBe('America/New_York');

  await live.director.settings.setBusinessHours.mutate({
    timeZone: 'Europe/Paris',
    week: [{ day: 1, opens: '09:00', closes: '17:00' }],
    closedDates: [],
    autoReply: null,
  });
  expect(await live.staff.settings.businessHours.query()).toMatchObject({ hoursSet: true, timeZone: 'Europe/Paris' });
  expect(await exportedTimeZone()).toBe('Europe/Paris');
});
