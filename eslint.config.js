// Lint rules. The layering of CONVENTIONS.md is enforced here: koa stays in src/app.ts and
// src/http, the mongodb driver in src/db, the S3 SDK in src/storage.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const owners = {
  koa: ['koa', '@koa/router', 'koa-body'],
  mongodb: ['mongodb'],
  s3: ['@aws-sdk/client-s3', '@aws-sdk/s3-request-presigner'],
};
const homes = { koa: 'src/app.ts and src/http/', mongodb: 'src/db/', s3: 'src/storage/' };

// One block per layer: each bans the libraries owned by the other layers.
const layer = (files, allowed = [], ignores = []) => ({
  files,
  ignores,
  rules: {
    'no-restricted-imports': [
      'error',
      {
        paths: Object.entries(owners)
          .filter(([key]) => !allowed.includes(key))
          .flatMap(([key, names]) =>
            names.map((name) => ({ name, message: `Only ${homes[key]} imports ${name}.` })),
          ),
      },
    ],
  },
});

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'cli/dist/',
      'sdk/dist/',
      'generated/',
      '.stack/',
      'coverage/',
      '.data/',
      'test/typed-client/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // An accessor in an object literal is an accessor pair per object, allocated by V8 in the old
    // generation, where it keeps whatever its closure holds alive until the next full collection
    // (see src/http/router.ts): a class getter is defined once on the prototype instead.
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "ObjectExpression > Property[kind='get'], ObjectExpression > Property[kind='set']",
          message: 'No getters or setters in object literals: use a class getter (see src/http/router.ts).',
        },
      ],
    },
  },
  {
    // Response bodies in tests are checked field by field against the spec and chai.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  layer(['src/**/*.ts'], [], ['src/app.ts', 'src/http/**', 'src/db/**', 'src/storage/**']),
  layer(['src/app.ts', 'src/http/**/*.ts'], ['koa']),
  layer(['src/db/**/*.ts'], ['mongodb']),
  layer(['src/storage/**/*.ts'], ['s3']),
  {
    files: ['scripts/**/*.mjs', 'scripts/**/*.js', 'scripts/**/*.cjs', 'test/contract/**/*.cjs'],
    languageOptions: { globals: { ...globals.node } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
