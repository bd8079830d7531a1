// drizzle-kit for the PostgreSQL engine: `pnpm --filter @rsnotify/hub db:generate:pg` writes the
// migrations to ./drizzle-pg from src/store/postgres/schema.ts (no database needed to generate).
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: [
    './src/store/postgres/schema.ts',
    './src/store/postgres/bridge-schema.ts',
    './src/store/postgres/admin-schema.ts',
  ],
  out: './drizzle-pg',
});
