// The one error base for every rsnotify package. A code is the contract (searchable, stable across
// releases); messages may change. Errors carry data (uri, expected/actual, status), not only prose.

export type ErrorDetails = Record<string, unknown>;

export class RsnotifyError extends Error {
  readonly code: string;
  readonly details: ErrorDetails;

  constructor(code: string, message: string, options: { cause?: unknown; details?: ErrorDetails } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'RsnotifyError';
    this.code = code;
    this.details = options.details ?? {};
  }

  toJSON(): { name: string; code: string; message: string; details: ErrorDetails } {
    return { name: this.name, code: this.code, message: this.message, details: this.details };
  }
}

export function isRsnotifyError(err: unknown, code?: string): err is RsnotifyError {
  return err instanceof RsnotifyError && (code === undefined || err.code === code);
}

/** A short text for logs from any thrown value, without leaking stacks into structured fields. */
export function describeError(err: unknown): { code?: string; message: string } {
  if (err instanceof RsnotifyError) return { code: err.code, message: err.message };
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return typeof code === 'string' ? { code, message: err.message } : { message: err.message };
  }
  return { message: String(err) };
}
