import type { TFirmRouted } from '../messaging';
import type { TNumberRoute } from '../numbers';
import type { TParsedPayload } from './parse-payload';

// The route step (verify → parse → route → ingest): each item goes to the firm's number it was sent
// to (server/numbers/README.md "Several numbers"). The provider's id for a number wins over its
// digits; a delivery that names no number (the on-premise shape) is the configured number's. With
// several numbers, an item for a number the firm does not have — or one whose secret this delivery
// did not prove — is acknowledged and counted, never stored.

export type TRouted = { payload: TParsedPayload; ignored: number; foreign: string[] };

export function routeByNumber(payload: TParsedPayload, routes: TNumberRoute[], proven: Set<number> | 'all'): TRouted {
  // Active numbers first: a deactivated number's digits may since be another's (the map keeps the first).
  const byId = new Map<string, TNumberRoute>();
  const byDigits = new Map<string, TNumberRoute>();
  for (const r of routes) {
    if (r.phoneNumberId && !byId.has(r.phoneNumberId)) byId.set(r.phoneNumberId, r);
    if (r.digits && !byDigits.has(r.digits)) byDigits.set(r.digits, r);
  }
  const configured = routes.find((r) => r.id === 1);
  // One number: everything the provider posts is its own, as before there were several (a FIRM_PHONE
  // written otherwise than the provider reports it loses nothing).
  const only = routes.length === 1 ? routes[0] : undefined;
  let ignored = 0;
  const foreign = new Set<string>();
  const keep = <T extends TFirmRouted>(items: T[]): T[] =>
    items.filter((item) => {
      const route =
        only ??
        (item.sentTo
          ? ((item.sentTo.phoneNumberId ? byId.get(item.sentTo.phoneNumberId) : undefined) ??
            (item.sentTo.digits ? byDigits.get(item.sentTo.digits) : undefined))
          : configured);
      if (route?.active && (proven === 'all' || proven.has(route.id))) {
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
      templateUpdates: keep(payload.templateUpdates),
    },
    ignored,
    foreign: [...foreign],
  };
}
