// Fault switches and the pure decisions over them. Every switch can be flipped at run time through
// `sim.faults.<name> = ...`; probabilities are drawn from seeded RNG streams and counts are consumed
// one per notification (or request, or change), so a run with the same seed and settings repeats.

export interface Faults {
  /** Probability that a notification is not posted (its changes still reach the Change Lists). */
  dropProbability: number;
  /** Count: the next N notifications are not posted. */
  dropNext: number;
  /** Probability that a notification is held back by `delayMs`; later ones overtake it. */
  delayProbability: number;
  delayMs: number;
  /** Probability that a notification is swapped with the one made after it. */
  reorderProbability: number;
  /** Probability that a notification is posted twice. */
  duplicateProbability: number;
  /** Changes become visible in the Change Lists only this many ms after they were made. */
  changeListLagMs: number;
  /** Probability that a request is answered 500. */
  serverErrorProbability: number;
  /** Count: the next N requests are answered 500. */
  serverErrorNext: number;
  /** Probability that a Change List or Change List Index request is answered 503 with Retry-After. */
  listUnavailableProbability: number;
  /** Count: the next N Change List or Change List Index requests are answered 503 with Retry-After. */
  listUnavailableNext: number;
  /** Which lists those 503s hit: the Change Lists and their index, or the Resource Lists too. */
  listUnavailableScope: 'change-lists' | 'all-lists';
  /** The Retry-After (seconds) of those 503s. */
  retryAfterSeconds: number;
  /** Which requests the 500 and slow faults hit. */
  serverErrorScope: 'all' | 'resources' | 'documents';
  /** Probability that a response is held back by `slowMs`. */
  slowProbability: number;
  slowMs: number;
  /** Probability that a created/updated resource is then served with other bytes than listed. */
  corruptProbability: number;
  /** Count: the next N created/updated resources are served corrupted. */
  corruptNext: number;
  /** '1.0': lastmod is the change time, no datetime, deletes carry no time (RC-25). */
  specVersion: '1.0' | '1.1';
  // ---- quirks of real Sources (0 off, 1 on; counts where named *Next)
  /** 1: Change Lists and the index are written without `rs:md/@from` (RC-21 bent). */
  omitChangeListFrom: number;
  /** 1: deletes made from now on carry no `datetime`, only the gone resource's old `lastmod`. */
  timelessDeletes: number;
  /** Count: the N oldest changes are dropped from the Change Lists (history cut short). */
  truncateHistoryNext: number;
  /** 1: new names include collections with members (a file that is also a directory) and `%2F`. */
  pathQuirks: number;
  /** Count: the next N changes reach neither a notification nor the Change Lists (a lost change). */
  loseChangeNext: number;
  /** 1: the change-notification channel is no longer advertised and nothing is posted (channel.ts). */
  dropChannel: number;
  /**
   * Count: the next N Resource Lists or Change Lists served (not the index) are each followed at
   * once by a change to every resource (a busy Source: RC-15, states move on after `at`).
   */
  busyAfterListsNext: number;
}

/**
 * All switches off. The object is sealed: assigning a misspelt switch (`Object.assign(sim.faults,
 * { dropRate: 1 })`) throws instead of silently doing nothing.
 */
export function defaultFaults(specVersion: '1.0' | '1.1' = '1.1'): Faults {
  return Object.seal({
    dropProbability: 0,
    dropNext: 0,
    delayProbability: 0,
    delayMs: 500,
    reorderProbability: 0,
    duplicateProbability: 0,
    changeListLagMs: 0,
    serverErrorProbability: 0,
    serverErrorNext: 0,
    listUnavailableProbability: 0,
    listUnavailableNext: 0,
    listUnavailableScope: 'change-lists',
    retryAfterSeconds: 1,
    serverErrorScope: 'all',
    slowProbability: 0,
    slowMs: 1000,
    corruptProbability: 0,
    corruptNext: 0,
    specVersion,
    omitChangeListFrom: 0,
    timelessDeletes: 0,
    truncateHistoryNext: 0,
    pathQuirks: 0,
    loseChangeNext: 0,
    dropChannel: 0,
    busyAfterListsNext: 0,
  });
}

/** Every notification fault off, serving and content faults off; spec version kept. */
export function clearFaults(faults: Faults): void {
  Object.assign(faults, defaultFaults(faults.specVersion));
}

/** Checks and copies a partial set of switches (from JSON or the CLI) onto `faults`. */
export function updateFaults(faults: Faults, patch: Record<string, unknown>): void {
  const template = defaultFaults();
  for (const [key, value] of Object.entries(patch)) {
    if (!(key in template)) throw new RangeError(`unknown fault switch ${JSON.stringify(key)}`);
    const k = key as keyof Faults;
    if (k === 'specVersion') {
      if (value !== '1.0' && value !== '1.1')
        throw new RangeError('specVersion must be "1.0" or "1.1"');
      faults.specVersion = value;
    } else if (k === 'serverErrorScope') {
      if (value !== 'all' && value !== 'resources' && value !== 'documents')
        throw new RangeError('serverErrorScope must be all|resources|documents');
      faults.serverErrorScope = value;
    } else if (k === 'listUnavailableScope') {
      if (value !== 'change-lists' && value !== 'all-lists')
        throw new RangeError('listUnavailableScope must be change-lists|all-lists');
      faults.listUnavailableScope = value;
    } else {
      const n = Number(value);
      if (!Number.isFinite(n) || n < 0) throw new RangeError(`fault ${key} must be a number >= 0`);
      if (key.endsWith('Probability') && n > 1)
        throw new RangeError(`fault ${key} is a probability (0..1)`);
      (faults as unknown as Record<string, number>)[k] = n;
    }
  }
}

type Chance = (p: number) => boolean;

export interface NotificationFate {
  readonly drop: boolean;
  readonly delayMs: number;
  readonly reorder: boolean;
  readonly duplicate: boolean;
}

/** What happens to the next notification; `dropNext` is the count left afterwards. */
export function decideNotificationFate(
  faults: Readonly<Faults>,
  chance: Chance,
): { fate: NotificationFate; dropNext: number } {
  if (faults.dropNext > 0) {
    return {
      fate: { drop: true, delayMs: 0, reorder: false, duplicate: false },
      dropNext: faults.dropNext - 1,
    };
  }
  const drop = chance(faults.dropProbability);
  const delayMs = chance(faults.delayProbability) ? faults.delayMs : 0;
  const reorder = chance(faults.reorderProbability);
  const duplicate = chance(faults.duplicateProbability);
  return { fate: { drop, delayMs, reorder, duplicate }, dropNext: 0 };
}

export type RequestKind = 'resource' | 'document';

const CHANGE_LIST_PATH = /^\/changelist(\/\d+)?\.xml$/;
const RESOURCE_LIST_PATH = /^\/resourcelist(\/\d+\/\d+)?\.xml$/; // the list or a part of a snapshot

/** A Change List or the Change List Index. */
export const isChangeListPath = (path: string): boolean => CHANGE_LIST_PATH.test(path);

/** Whether a request for `path` is one that the listUnavailable faults may answer 503. */
export function isUnavailableInScope(faults: Readonly<Faults>, path: string): boolean {
  return (
    isChangeListPath(path) ||
    (faults.listUnavailableScope === 'all-lists' && RESOURCE_LIST_PATH.test(path))
  );
}

/** A Resource List (or a part of one) or a Change List answered 200: busyAfterListsNext's trigger. */
export function isListServed(path: string, status: number): boolean {
  return (
    status === 200 &&
    (RESOURCE_LIST_PATH.test(path) || (isChangeListPath(path) && path !== '/changelist.xml'))
  );
}

export interface RequestFate {
  readonly serverError: boolean;
  readonly delayMs: number;
  /** Set: answer 503 Service Unavailable with this Retry-After (seconds). */
  readonly unavailableRetryAfterS?: number;
}

/**
 * Whether the next list request in scope (isUnavailableInScope) is answered 503 with Retry-After,
 * as a busy Source asks pollers to back off; `listUnavailableNext` is the count left afterwards.
 */
export function decideListUnavailable(
  faults: Readonly<Faults>,
  chance: Chance,
): { retryAfterS: number | undefined; listUnavailableNext: number } {
  const retryAfterS = Math.max(0, Math.round(faults.retryAfterSeconds));
  if (faults.listUnavailableNext > 0)
    return { retryAfterS, listUnavailableNext: faults.listUnavailableNext - 1 };
  return {
    retryAfterS: chance(faults.listUnavailableProbability) ? retryAfterS : undefined,
    listUnavailableNext: 0,
  };
}

/** What happens to the next request of this kind; `serverErrorNext` is the count left afterwards. */
export function decideRequestFate(
  faults: Readonly<Faults>,
  kind: RequestKind,
  chance: Chance,
): { fate: RequestFate; serverErrorNext: number } {
  const inScope =
    faults.serverErrorScope === 'all' ||
    (faults.serverErrorScope === 'resources') === (kind === 'resource');
  if (!inScope)
    return { fate: { serverError: false, delayMs: 0 }, serverErrorNext: faults.serverErrorNext };
  let next = faults.serverErrorNext;
  let serverError: boolean;
  if (next > 0) {
    serverError = true;
    next--;
  } else serverError = chance(faults.serverErrorProbability);
  const delayMs = chance(faults.slowProbability) ? faults.slowMs : 0;
  return { fate: { serverError, delayMs }, serverErrorNext: next };
}

/** Whether the next created/updated resource is served corrupted; `corruptNext` is the count left. */
export function decideCorruption(
  faults: Readonly<Faults>,
  chance: Chance,
): { corrupt: boolean; corruptNext: number } {
  if (faults.corruptNext > 0) return { corrupt: true, corruptNext: faults.corruptNext - 1 };
  return { corrupt: chance(faults.corruptProbability), corruptNext: 0 };
}
