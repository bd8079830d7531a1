// The one error base for every rsnotify package. A code is the contract (searchable, stable across
// releases); messages may change. Errors carry data (uri, expected/actual, status), not only prose.

export type ErrorDetails = Record<string, unknown>;

/**
 * One package's table of error codes: for each code, the class (or classes, `A|B`) that carries it
 * and what it means. Each package has one (`SHARED_ERRORS`, `HUB_ERRORS`, ...) and derives its code
 * types from it with `CodesOf`.
 */
export type ErrorCatalog = Readonly<
  Record<string, { readonly class: string; readonly meaning: string }>
>;

/** The codes of a catalog that the class named `Cls` may carry. */
export type CodesOf<C extends ErrorCatalog, Cls extends string> = {
  [K in keyof C]: Cls extends SplitClasses<C[K]['class']> ? K : never;
}[keyof C] &
  string;

type SplitClasses<S extends string> = S extends `${infer A}|${infer B}` ? A | SplitClasses<B> : S;

/** The base of every rsnotify error; `Code` is the union of codes its subclass may carry. */
export class RsnotifyError<Code extends string = string> extends Error {
  readonly code: Code;
  readonly details: ErrorDetails;

  constructor(
    code: Code,
    message: string,
    options: { cause?: unknown; details?: ErrorDetails } = {},
  ) {
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
  if (isRsnotifyError(err)) return { code: err.code, message: err.message };
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return typeof code === 'string' ? { code, message: err.message } : { message: err.message };
  }
  return { message: String(err) };
}
