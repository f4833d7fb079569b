export type { ProviderClient, TProviderTemplateSend, TTemplateHeaderMedia } from './provider-client';
export { CLIENT_NAME_SLOT, messageForProviderCode } from './provider-error-codes';
export { ProviderError } from './provider-errors';
export { countParams, renderTemplateBody } from './provider-template';
export type { TProviderTemplate } from './provider-template';
