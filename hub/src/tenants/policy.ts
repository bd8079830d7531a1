// Who owns a channel, who may publish into it, who may subscribe to it (RT-5, WH-14). Pure.
import type { Refusal } from '../errors/index.js';
import type { SourceRecord } from '../store/index.js';
import { tokenMatches } from './tokens.js';

/** The Source whose longest topic prefix matches the (normalised) topic URL. */
export function findOwner(
  sources: readonly SourceRecord[],
  topicUrl: string,
): SourceRecord | undefined {
  let best: SourceRecord | undefined;
  let bestLength = -1;
  for (const s of sources) {
    for (const p of s.topicPrefixes) {
      if (p.length > bestLength && topicUrl.startsWith(p)) {
        best = s;
        bestLength = p.length;
      }
    }
  }
  return best;
}

export type PublishDecision =
  | { readonly ok: true; readonly source: SourceRecord | undefined }
  | {
      readonly ok: false;
      readonly refusal: Refusal & ('not-owner' | 'missing-token' | 'wrong-token');
      readonly reason: string;
    };

/**
 * RT-5, RT-7: publishing into a channel needs the token of the Source owning it, so one Source can
 * never publish into another's channel. With open publishing any topic is accepted.
 */
export function authorizePublish(
  sources: readonly SourceRecord[],
  topicUrl: string,
  token: string | undefined,
  openPublishing: boolean,
): PublishDecision {
  const owner = findOwner(sources, topicUrl);
  if (openPublishing) return { ok: true, source: owner };
  if (!owner)
    return {
      ok: false,
      refusal: 'not-owner',
      reason: 'topic is not a channel of any registered Source',
    };
  if (token === undefined)
    return { ok: false, refusal: 'missing-token', reason: 'missing Authorization: Bearer token' };
  if (!tokenMatches(token, owner.tokenHash))
    return {
      ok: false,
      refusal: 'wrong-token',
      reason: 'token does not belong to the Source owning this topic',
    };
  return { ok: true, source: owner };
}

/** WH-14: a Source with a callback allow-list refuses every other callback; undefined means allowed. */
export function subscriptionDenialReason(
  sources: readonly SourceRecord[],
  topicUrl: string,
  callback: string,
): string | undefined {
  const owner = findOwner(sources, topicUrl);
  if (!owner || owner.callbackPrefixes.length === 0) return undefined;
  if (owner.callbackPrefixes.some((p) => callback.startsWith(p))) return undefined;
  return 'the callback is not allowed by the policy of the Source owning this topic';
}
