import type { TFirmRouted } from '../messaging';
import type { TNumberRoute } from '../numbers';
import type { TParsedPayload } from './parse-payload';

// The route step (verify → parse → route → ingest): each item goes to the firm's number it was sent
// to (server/numbers/README.md "Several numbers"). The provider's id for a number wins over its
// digits; a delivery that names no number (the on-premise shape) is the configured number's. An
// item for a number the firm does not have — or one whose secret this delivery did not prove — is
// acknowledged and counted, never stored.

export type TRouted = { payload: TParsedPayload; ignored: number; foreign: string[] };

export function routeByNumber(payload: TParsedPayload, routes: TNumberRoute[], proven: Set<number> | 'all'): TRouted {
  const byId = new Map(routes.filter((r) => r.phoneNumberId).map((r) => [r.phoneNumberId!, r]));
  const byDigits = new Map(routes.filter((r) => r.digits).map((r) => [r.digits, r]));
  const configured = routes.find((r) => r.id === 1);
  let ignored = 0;
  const foreign = new Set<string>();
  const keep = <T extends TFirmRouted>(items: T[]): T[] =>
    items.filter((item) => {
      const route = item.sentTo
        ? ((item.sentTo.phoneNumberId ? byId.get(item.sentTo.phoneNumberId) : undefined) ??
          (item.sentTo.digits ? byDigits.get(item.sentTo.digits) : undefined))
        : configured;
      if (route && (proven === 'all' || proven.has(route.id))) {
        item.firmNumberId = route.id;
        return true;
      }
      ignored++;
      foreign.add(item.sentTo?.digits ?? item.sentTo?.phoneNumberId ?? 'unnamed');
      return false;
    });
  return {
    payload: {
      ...payload,
      messages: keep(payload.messages),
      updates: keep(payload.updates),
      receipts: keep(payload.receipts),
      preferences: keep(payload.preferences),
    },
    ignored,
    foreign: [...foreign],
  };
}
