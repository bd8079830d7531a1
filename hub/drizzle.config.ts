import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'sqlite',
  schema: [
    './src/store/schema.ts',
    './src/store/bridge-schema.ts',
    './src/store/sqlite/admin-schema.ts',
  ],
  out: './drizzle',
  dbCredentials: { url: './data/hub.db' },
});
