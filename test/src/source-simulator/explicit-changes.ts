// Explicit changes (makeChanges, POST /_sim/changes): checked as a whole batch against the state
// before anything is applied, so a bad batch changes nothing.
import type { ExplicitChange } from './api.js';
import { mediaTypeFor } from './content.js';
import type { ChangeIntent } from './generator.js';
import { canonicalTarget, encodeResourceName, nameExtension } from './names.js';
import type { ResourceState } from './state.js';
import { RsnotifyError } from '@rsnotify/shared';

export class SimulatorError extends RsnotifyError {
  constructor(
    code: 'RSN_SIM_BAD_CHANGE' | 'RSN_SIM_CLOSED',
    message: string,
    details: Record<string, unknown> = {},
  ) {
    super(code, message, { details });
    this.name = 'SimulatorError';
  }
}

export interface ExplicitIntent extends ChangeIntent {
  readonly uri?: string;
  readonly corrupt?: boolean;
}

/** Checks a whole explicit batch against the state before anything is applied (atomic). */
export function planExplicitChanges(
  changes: readonly ExplicitChange[],
  baseUrl: string,
  state: ResourceState,
): ExplicitIntent[] {
  const exists = new Map<string, boolean>();
  return changes.map((c, index) => {
    let target: string | undefined;
    let uri: string | undefined;
    let extension = 'txt';
    if (c.rawTarget !== undefined) {
      target = canonicalTarget(c.rawTarget);
      uri = baseUrl + c.rawTarget;
      const last = c.rawTarget.split('?')[0]!.split('/').pop() ?? '';
      extension = last.includes('.') ? last.slice(last.lastIndexOf('.') + 1).toLowerCase() : 'txt';
    } else if (c.path !== undefined) {
      const name = { segments: c.path.split('/'), ...(c.query ? { query: c.query } : {}) };
      target = encodeResourceName(name);
      extension = nameExtension(name) || 'txt';
    }
    if (target === undefined || !target.startsWith('/resources/')) {
      throw new SimulatorError(
        'RSN_SIM_BAD_CHANGE',
        `change ${index}: needs a path or a rawTarget below /resources/`,
        { index },
      );
    }
    const present = exists.get(target) ?? state.has(target);
    if ((c.change === 'created') === present) {
      throw new SimulatorError(
        'RSN_SIM_BAD_CHANGE',
        `change ${index}: cannot ${c.change} ${present ? 'existing' : 'missing'} ${target}`,
        { index, target },
      );
    }
    exists.set(target, c.change !== 'deleted');
    if (c.change === 'deleted')
      return { target, change: c.change, extension, ...(uri ? { uri } : {}) };
    const version = (state.get(target)?.version ?? 0) + 1;
    const bytes =
      c.bytes === undefined ? Buffer.from(`${target} v${version}\n`) : Buffer.from(c.bytes);
    return {
      target,
      change: c.change,
      extension,
      bytes,
      media: mediaTypeFor(extension),
      ...(uri ? { uri } : {}),
      ...(c.corrupt ? { corrupt: true } : {}),
    };
  });
}
