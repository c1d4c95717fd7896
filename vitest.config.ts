import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The examples import `indusagi/...` by name; tsconfig `paths` map those names to the sources.
  resolve: { tsconfigPaths: true },
  test: {
    include: ['tests/**/*.test.ts', 'tests/**/*.test.tsx'],
    // One throwaway PostgreSQL cluster for the whole run (see tests/support/postgres-setup.ts).
    globalSetup: ['tests/support/postgres-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Crash and multi-process tests spawn real children; two cores are all CI has.
    maxWorkers: 2,
  },
});
