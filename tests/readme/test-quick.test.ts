// `npm run test:quick`, which the README names for the inner loop, leaves out exactly the kinds of file
// it promises to (PostgreSQL, Chromium, the packed tarball, conformance, kills, tsc) and keeps plain unit tests.
import { describe, expect, it } from 'vitest';
import quick, { heavyFiles } from '../../vitest.quick.config.js';

describe('npm run test:quick', () => {
  it('leaves out the heavy files by what they use, starts no cluster, and keeps the rest', () => {
    for (const heavy of [
      'tests/postgres/session-store.test.ts',
      'tests/examples/web-chat.test.ts',
      'tests/package/tarball.test.ts',
      'tests/mcp/conformance.test.ts',
      'tests/runtime/agent/crash.test.ts',
      'tests/tools/typed-tool.test.ts',
    ])
      expect(heavyFiles).toContain(heavy);
    expect(heavyFiles).not.toContain('tests/memory/ranking.test.ts');
    expect(heavyFiles).not.toContain('tests/readme/test-quick.test.ts');
    // No PostgreSQL cluster and no tarball: only the bundle of the command the CLI tests run.
    expect(quick.test?.globalSetup).toEqual(['tests/support/cli-setup.ts']);
    expect(quick.test?.typecheck?.enabled).toBe(false);
    expect(quick.test?.exclude).toEqual(expect.arrayContaining(['**/node_modules/**', ...heavyFiles]));
  });
});
