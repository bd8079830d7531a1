// Column names of the prepared intake writes come from the drizzle schema: a property the table
// does not have is a programming error with its own store code, not a statement with a bad column.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { columnNames } from '../src/store/sqlite/statements.js';
import { sources } from '../src/store/schema.js';
import { StoreError } from '../src/errors/index.js';

test('columnNames: schema column names, quoted; an unknown property is RSN_STORE_NO_COLUMN', () => {
  assert.deepEqual(columnNames(sources, ['name']), ['"name"']);
  assert.throws(
    () => columnNames(sources, ['name', 'noSuchProperty']),
    (err: unknown) => err instanceof StoreError && err.code === 'RSN_STORE_NO_COLUMN',
  );
});
