// Lint: the usual correctness rules plus the layers, stated as import zones.
//   src/core        the engine: never `vscode`, never the glue, never the webview
//   src/extension   the VS Code glue; its tools never reach into the inspector
//   src/mcp         the MCP server: the engine without VS Code, so never `vscode` and never the glue
//   webview/        the browser side: nothing from src/ at run time (types only, through protocol.ts)
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** `no-restricted-imports` patterns; `allowTypeImports` lets `import type` cross a zone (it is erased). */
const zone = (...patterns) => ({
  '@typescript-eslint/no-restricted-imports': ['error', { patterns: patterns.map((p) => ({ allowTypeImports: true, ...p })) }],
});

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', '.vscode-test/', '.cache/', 'test/artifacts/', '*.vsix'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked.map((config) => ({ ...config, files: ['**/*.ts'] })),
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      // Methods that implement a promise-returning interface are async without awaiting; that is fine.
      '@typescript-eslint/require-await': 'off',
      // Codecs and kinds come back from SQLite rows as plain numbers and are compared with the enum.
      '@typescript-eslint/no-unsafe-enum-comparison': 'off',
      // Terminal output is full of control characters; matching them is the point of those patterns.
      'no-control-regex': 'off',
    },
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { globals: { ...globals.node } },
    rules: {
      'no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
    },
  },
  {
    // Tests read JSON from processes and hosts and load package.json; `any` there is checked by assert.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-require-imports': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: zone(
      { group: ['vscode'], message: 'src/core is the engine: it never imports vscode at run time (use `import type`).' },
      { group: ['**/extension/**', '**/extension'], message: 'src/core never imports the VS Code glue (src/extension).' },
      { group: ['**/webview/**', '**/webview'], message: 'src/core never imports the webview.' },
    ),
  },
  {
    files: ['src/extension/**/*.ts'],
    // webview/sizes.ts and webview/times.ts are the exceptions: pure formatting (no DOM, no messages) that
    // the tree and the status bar share with the page, so one output's size and time read the same everywhere.
    rules: zone({
      group: ['**/webview/**', '!**/webview/protocol', '!**/webview/sizes', '!**/webview/times'],
      message:
        'The glue talks to the webview only through its one message file, webview/protocol.ts (and formats sizes and times with webview/sizes.ts and webview/times.ts).',
    }),
  },
  {
    files: ['src/extension/tools/**/*.ts'],
    rules: zone(
      {
        group: ['**/webview/**', '**/webview'],
        message: 'The glue talks to the webview only through messages (webview/protocol.ts types).',
      },
      {
        group: ['**/inspector/**', '**/inspector'],
        message: 'Tools never import the inspector: the inspector reads the store, tools write it.',
      },
    ),
  },
  {
    files: ['src/mcp/**/*.ts'],
    rules: zone(
      { group: ['vscode'], message: 'src/mcp runs outside VS Code (dist/mcp.js): it never imports vscode at run time.' },
      {
        group: ['**/extension/**', '**/extension'],
        message: 'src/mcp never imports the VS Code glue (src/extension); shared parts live in src/core.',
      },
      { group: ['**/webview/**', '**/webview'], message: 'src/mcp never imports the webview.' },
    ),
  },
  {
    files: ['webview/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
    rules: zone({
      group: ['**/src/**', 'vscode', 'node:*'],
      message: 'The webview runs in a browser: nothing from src/ (or Node, or vscode) at run time; types only.',
    }),
  },
);
