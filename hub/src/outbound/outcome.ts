// What one delivery attempt came to (WH-19, RT-16). Pure classification: the sender reports the raw
// status or error code, this decides what it means.

export type DeliveryOutcome =
  | { readonly kind: 'delivered'; readonly status: number }
  | { readonly kind: 'gone'; readonly status: 410 }
  | { readonly kind: 'failed'; readonly status?: number; readonly code?: string };

/** WH-19: 2xx is success, 410 ends the subscription, everything else (3xx included) is a failure. */
export function classifyStatus(status: number): DeliveryOutcome {
  if (status >= 200 && status <= 299) return { kind: 'delivered', status };
  if (status === 410) return { kind: 'gone', status: 410 };
  return { kind: 'failed', status };
}

/** A thrown request error (timeout, reset, refused address) is a failure carrying its code. */
export function classifyError(err: unknown): DeliveryOutcome {
  const code = (err as { code?: unknown } | null)?.code;
  return { kind: 'failed', code: typeof code === 'string' ? code : 'RSN_DELIVERY_ERROR' };
}
