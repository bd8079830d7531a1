// ESLint (flat config) with typescript-eslint's type-aware rules: the recommended type-checked set,
// with the few changes below (each says why).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '**/drizzle/**',
      'test/fixtures/**',
      'data/**',
      '.tmp/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: {
        project: [
          './shared/tsconfig.test.json',
          './service-kit/tsconfig.test.json',
          './hub/tsconfig.test.json',
          './subscriber/tsconfig.test.json',
          './test/tsconfig.json',
        ],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // node:test's test()/describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite'] },
          ],
        },
      ],
      // `x[0]!` documents that an index is known to exist; it stays meaningful if
      // noUncheckedIndexedAccess is turned on.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      // Store interfaces are async so that the SQLite and PostgreSQL engines share them; the SQLite
      // engine's methods are synchronous inside.
      '@typescript-eslint/require-await': 'off',
      // A variable declared before the closures that read it and assigned once after is fine.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // `_name` marks a value left out on purpose (rest destructuring, unused parameters).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Every error a package raises carries a stable code from its catalog (errors/catalog.ts), so
    // operators and tests can tell them apart: no bare Error in the packages' sources.
    files: [
      'shared/src/**/*.ts',
      'service-kit/src/**/*.ts',
      'hub/src/**/*.ts',
      'subscriber/src/**/*.ts',
    ],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Error'], CallExpression[callee.name='Error']",
          message: "Throw the package's coded error (its errors/catalog.ts), not a bare Error.",
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs', '**/drizzle*.config.ts'],
    ...tseslint.configs.disableTypeChecked,
  },
);
