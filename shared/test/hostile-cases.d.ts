export interface HostileDocument {
  readonly name: string;
  /** The case the row covers: the probe finding or the standard it cites. */
  readonly covers: string;
  /** The refusal code expected from parseDocument and streamDocument. */
  readonly code: string;
  readonly make: () => string | Buffer;
  /** Limits the row parses with (both readers), when not the defaults. */
  readonly limits?: Readonly<Record<string, number>>;
}
export declare const HOSTILE_DOCUMENTS: readonly HostileDocument[];
//# sourceMappingURL=hostile-cases.d.ts.map
