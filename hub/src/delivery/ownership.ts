// Delivery ownership: which subscriptions' cursors this process drives. With SQLite there is one
// process and it drives all of them; with PostgreSQL each subscription is claimed by exactly one
// live process at a time (cluster/ implements this port) and the scheduler asks it before tracking
// one. The port lives here, with its user, so cluster/ depends on delivery/ and not the reverse.
export interface DeliveryOwnership {
  drives(subscriptionId: number): boolean;
}

export const SOLE_OWNER: DeliveryOwnership = { drives: () => true };
