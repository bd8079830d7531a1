// outbound/: every HTTP request the hub sends (deliveries, verification of intent, topic fetches and
// checks): the SSRF-guarded keep-alive agent, the request calls with their time-outs and body limits,
// and the classification of what a delivery POST came to. Decisions about retrying, ordering and
// verifying stay in delivery/ and subscriptions/; this folder only does the I/O.
export { createSender, deliveryTarget, type DeliveryTarget, type SendDelivery } from './sender.js';
export { classifyError, classifyStatus, type DeliveryOutcome } from './outcome.js';
export { createGetter, type GetOptions, type GetResult, type GetText } from './get.js';
