export { assertSendingNumber, CONFIGURED_NUMBER_ID, listFirmNumbers, syncConfiguredNumber } from './firm-numbers';
export { numberKeysFrom, type TNumberKeys } from './number-keys';
export { providersByNumber, type TProviderFor } from './number-providers';
export { readNumberRoutes, type TNumberRoute } from './number-routes';
export type { TFirmNumber } from './number-schema';
