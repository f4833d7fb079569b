export { DELIVERY_OUTCOMES } from './delivery-log';
export { readWebhookSetup } from './webhook-setup';
