// What the next random change is: a pure decision over the state and the seeded RNG. Mix of creates,
// updates and deletes that keeps the set near its target size, repeated changes to one URI close
// together (several per batch), and deleted URIs that come back.
import type { ChangeType } from '@rsnotify/shared';
import type { SimulatorOptions } from './api.js';
import { generateContent, mediaTypeFor, type ContentOptions, type MediaType } from './content.js';
import { encodeResourceName, generateName, generateQuirkName, nameExtension } from './names.js';
import type { Random } from './random.js';
import type { ResourceState } from './state.js';

export interface GeneratorOptions extends ContentOptions {
  /** The size the set drifts towards. */
  readonly targetResources: number;
  /** Probability that a change hits a URI already changed in the same batch (default 0.15). */
  readonly repeatProbability?: number;
  /** Probability that a new name is an odd one (spaces, non-ASCII, '&', queries; default 0.5). */
  readonly oddNames?: number;
  /** Quirk switch read at each new name: > 0 mixes in collection and encoded-'/' names. */
  readonly pathQuirks?: () => number;
  /** State of the quirk names (which collection members join). */
  readonly quirkMemory?: { lastCollection?: string };
}

export interface ChangeIntent {
  readonly target: string;
  readonly change: ChangeType;
  readonly extension: string;
  readonly bytes?: Buffer;
  readonly media?: MediaType;
}

function contentFor(
  rng: Random,
  state: ResourceState,
  target: string,
  extension: string,
  options: GeneratorOptions,
) {
  const version = (state.get(target)?.version ?? 0) + 1;
  return {
    bytes: generateContent(rng, target, extension, version, options),
    media: mediaTypeFor(extension),
  };
}

/** A new resource (fresh name, or now and then a deleted URI coming back). */
export function newResource(
  rng: Random,
  state: ResourceState,
  options: GeneratorOptions,
): ChangeIntent {
  // A URI that existed before comes back now and then (delete, then create again).
  if (state.deleted.length > 0 && rng.chance(0.1)) {
    const i = rng.int(state.deleted.length);
    const { target, extension } = state.deleted[i]!;
    if (!state.has(target))
      return {
        target,
        change: 'created',
        extension,
        ...contentFor(rng, state, target, extension, options),
      };
  }
  for (;;) {
    // The RNG is drawn for quirks only when the switch is on, so runs without it repeat exactly.
    const quirk = (options.pathQuirks?.() ?? 0) > 0 && rng.chance(0.3);
    const name = quirk
      ? generateQuirkName(rng, state.nextId++, options.quirkMemory ?? {})
      : generateName(rng, state.nextId++, options.oddNames ?? 0.5);
    const target = encodeResourceName(name);
    if (state.has(target)) continue;
    const extension = nameExtension(name);
    return {
      target,
      change: 'created',
      extension,
      ...contentFor(rng, state, target, extension, options),
    };
  }
}

function changeExisting(
  rng: Random,
  state: ResourceState,
  target: string,
  del: boolean,
  options: GeneratorOptions,
): ChangeIntent {
  const extension = state.get(target)!.extension;
  if (del) return { target, change: 'deleted', extension };
  return {
    target,
    change: 'updated',
    extension,
    ...contentFor(rng, state, target, extension, options),
  };
}

/**
 * The next random change. `touched` lists the targets changed earlier in the same batch: repeats go
 * there, whatever their state (an update or delete if it exists, a re-creation if it was deleted).
 */
export function nextChange(
  rng: Random,
  state: ResourceState,
  touched: readonly string[],
  options: GeneratorOptions,
): ChangeIntent {
  if (touched.length > 0 && rng.chance(options.repeatProbability ?? 0.15)) {
    const target = rng.pick(touched);
    const current = state.get(target);
    if (current) return changeExisting(rng, state, target, rng.chance(0.25), options);
    const ext = state.deleted.find((d) => d.target === target)?.extension ?? 'txt';
    return {
      target,
      change: 'created',
      extension: ext,
      ...contentFor(rng, state, target, ext, options),
    };
  }
  const target = Math.max(options.targetResources, 20);
  const ratio = state.size / target;
  const pCreate = state.size < 5 ? 1 : ratio < 0.5 ? 0.6 : ratio > 1.5 ? 0.15 : 0.3;
  const pDelete = ratio < 0.5 ? 0.1 : ratio > 1.5 ? 0.45 : 0.25;
  const roll = rng.next();
  if (roll < pCreate) return newResource(rng, state, options);
  const existing = state.randomTarget((n) => rng.int(n))!;
  return changeExisting(rng, state, existing, roll < pCreate + pDelete, options);
}

/**
 * The busy-Source quirk (faults.busyAfterListsNext): every resource the Source holds changes at
 * once, every fourth deleted and the others updated, so a client that has just read a list fetches
 * states the list does not describe (RC-15).
 */
export function changeEveryResource(
  rng: Random,
  state: ResourceState,
  options: GeneratorOptions,
): ChangeIntent[] {
  return state.versions().map((v, i) => changeExisting(rng, state, v.target, i % 4 === 3, options));
}

/** The generator's options from the simulator's (`pathQuirks` read live from the fault switch). */
export function generatorOptionsFrom(
  o: SimulatorOptions,
  initial: number,
  pathQuirks: () => number,
): GeneratorOptions {
  return {
    targetResources: o.targetResources ?? Math.max(initial, 100),
    ...(o.repeatProbability !== undefined ? { repeatProbability: o.repeatProbability } : {}),
    ...(o.oddNames !== undefined ? { oddNames: o.oddNames } : {}),
    ...(o.typicalMaxBytes !== undefined ? { typicalMaxBytes: o.typicalMaxBytes } : {}),
    pathQuirks,
    quirkMemory: {},
  };
}
