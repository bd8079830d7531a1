// errors/: the catalog of the hub's error codes.
export { HUB_ERRORS, type HubCodesOf, type HubErrorCode } from './catalog.js';
export { REFUSALS, type Refusal } from './refusals.js';
