import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The examples import `indusagi/...` by name; tsconfig `paths` map those names to the sources.
  resolve: { tsconfigPaths: true },
  test: {
    include: ['tests/**/*.test.ts', 'tests/**/*.test.tsx'],
    // One throwaway PostgreSQL cluster for the whole run (see tests/support/postgres-setup.ts), one
    // packed tarball for the files that install it (tests/support/pack-setup.ts), and one bundle of the
    // `indusagi` command for the tests that run it (tests/support/cli-setup.ts).
    globalSetup: ['tests/support/postgres-setup.ts', 'tests/support/pack-setup.ts', 'tests/support/cli-setup.ts'],
    // A test waits on events (a line printed, a process exiting, a row written), never on the clock, so
    // a limit here is only a guard against a hang: generous enough that a loaded 2-core machine never
    // trips it on a test that works (issue 32 item 8), so a test that does trip it is a real hang.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // The same for `expect.poll` (the browser tests wait on the page with it): its default gives up
    // after one second, which a busy machine overruns on a page that works (web-chat-page failed so
    // under load 20); a wait that long is only a guard against a page that never gets there.
    expect: { poll: { timeout: 60_000 } },
    // Four files at a time on CI's two cores: most of a test file's time is spent waiting on a child
    // process, a server or PostgreSQL, not computing (tests/cli, measured at rest: 116 CPU-seconds in 90 s
    // with 2 workers, 65% of two cores; 4 workers ran the same files in 63 s for the same CPU time).
    maxWorkers: 4,
    // The public types inference carries (tests/types/*.test-d.ts), checked by tsc in the same run: a
    // wrong inference, or a `@ts-expect-error` that is no longer an error, fails the run. `npm test`
    // turns this off (`--typecheck.enabled=false`): its `npm run typecheck` step already checks those
    // files (tsconfig.json includes tests/), and a second tsc beside the test files costs a core.
    typecheck: { enabled: true, include: ['tests/types/**/*.test-d.ts'], tsconfig: 'tsconfig.json' },
  },
});
