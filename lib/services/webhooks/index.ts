/** The webhooks feature's public face: subscriptions and the outbox worker. Outside lib/services/webhooks/ only this file is imported. */
export {
  WEBHOOK_EVENTS,
  ZCreateWebhook,
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhookDeliveries,
  listWebhooks,
  sendTestWebhook,
} from './webhooks';
export { deliverDue, startWebhookWorker, type RunningWorker } from './worker';
