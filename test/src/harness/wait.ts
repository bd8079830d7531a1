export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
  /** Included in the timeout error, e.g. 'mirror converged'. */
  what?: string;
}

/** Polls `probe` until it returns a truthy value (which is returned), or throws after the deadline. */
export async function waitFor<T>(probe: () => T | Promise<T>, options: WaitOptions = {}): Promise<NonNullable<T>> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  let lastError: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v) return v as NonNullable<T>;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const why = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out after ${options.timeoutMs ?? 30_000} ms waiting for ${options.what ?? 'condition'}${why}`);
    }
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 50));
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
