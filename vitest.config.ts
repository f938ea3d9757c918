import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    // Tests run against the sources of the packages, not their builds.
    alias: [
      { find: /^@tether\/shared-protocol\/testing$/, replacement: src('./shared-protocol/src/testing/index.ts') },
      { find: /^@tether\/shared-protocol$/, replacement: src('./shared-protocol/src/index.ts') },
      { find: /^@tether\/machine\/testing$/, replacement: src('./machine/src/testing/index.ts') },
      { find: /^@tether\/machine$/, replacement: src('./machine/src/index.ts') },
    ],
  },
  test: {
    include: ['{shared-protocol,host,machine,relay,pwa,scripts}/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
