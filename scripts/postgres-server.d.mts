// Types of scripts/postgres-server.mjs (plain JavaScript so the test runner needs no build step).
export const TEST_PG_USER: string;
export const TEST_PG_PASSWORD: string;
export interface PostgresServer {
  readonly url: string;
  readonly adminUrl: string;
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  stop(): void;
  /** Stops the server but keeps its data (a database outage); resume() starts it again on the same port. */
  pause(): void;
  resume(): void;
}
export function startPostgres(options?: {
  fsync?: boolean;
  maxConnections?: number;
}): Promise<PostgresServer | { error: string }>;
export function createDatabase(adminUrl: string, prefix?: string): string;
export function serverUser(): string;
export function testPostgres(): Promise<
  { adminUrl: string; newDatabase: (prefix?: string) => string } | { skip: string }
>;
