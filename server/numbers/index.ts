export { assertSendingNumber, CONFIGURED_NUMBER_ID, deactivatedNumber, listFirmNumbers, syncConfiguredNumber } from './firm-numbers';
export { numberKeysFrom, type TNumberKeys } from './number-keys';
export { providersByNumber, unreadableKey, type TProviderFor } from './number-providers';
export { NumberRouteCache } from './number-route-cache';
export { findUnreadableNumbers, readNumberRoutes, type TNumberRoute } from './number-routes';
export type { TFirmNumber } from './number-schema';
