// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Folders whose code must stay pure: no I/O, no clock, no randomness (see ../shared/STYLE.md). */
const pureFolders = [
  'shared/*/desired/**/*.ts',
  'shared/topology/patches/**/*.ts',
  'shared/topology/variables/**/*.ts',
  'shared/lang/**/*.ts',
];

const ioModules = [
  '@kubernetes/client-node',
  '@aws-sdk/*',
  'node:fs',
  'node:fs/promises',
  'node:http',
  'node:https',
  'node:net',
  'node:child_process',
  'node:crypto',
  'fs',
  'http',
  'https',
  'net',
  'child_process',
];

export default tseslint.config(
  { ignores: ['node_modules/**', 'cdk.out/**', 'dist/**', 'shared/api/crds/**', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        AbortController: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        fetch: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        { selector: 'TSEnumDeclaration', message: 'Use an `as const` object and a derived union instead of enum.' },
        { selector: 'TSModuleDeclaration[kind="namespace"]', message: 'No namespaces.' },
      ],
    },
  },
  {
    files: ['shared/**/*.ts'],
    ignores: ['shared/kube/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [{ name: '@kubernetes/client-node', message: 'Only shared/kube/ talks to the Kubernetes client.' }] },
      ],
    },
  },
  {
    files: pureFolders,
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: ioModules.map((group) => ({ group: [group], message: 'Pure code: pass facts in as arguments.' })) },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'fetch', message: 'Pure code: no network.' },
        { name: 'process', message: 'Pure code: no environment.' },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'Pure code: take the time as an argument.' },
        { object: 'Math', property: 'random', message: 'Pure code: take a name generator as an argument.' },
      ],
    },
  },
);
