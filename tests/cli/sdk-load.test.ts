// `npm start` shows its first prompt before `@anthropic-ai/sdk` is loaded: the chat's model (the offline
// demo model here, Claude behind a loopback server) loads the SDK's main module on its first call, not
// before. (The Anthropic invoker's schema controls import one small helper module of the SDK,
// `@anthropic-ai/sdk/lib/transform-json-schema`, at startup; that is not the client.) Checked
// on the real command in a terminal, with the module resolve hook of tests/entries/vendor-free.test.ts
// writing down every vendor import as it is resolved.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useWorkspace } from './cli-process.js';
import { PtyCli } from './pty.js';
import { idle } from './screen-helpers.js';

const SLOW = 300_000;
const HOOK = pathToFileURL(join(import.meta.dirname, '../entries/fixtures/register-vendor-imports.mjs')).href;

const workspace = useWorkspace();

/** The vendor specifiers the command has imported so far (the hook writes each before the module loads). */
async function vendorImports(log: string): Promise<string[]> {
  const text = await readFile(log, 'utf8').catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? '' : Promise.reject(error)));
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { specifier: string }).specifier);
}

describe('the chat and the Claude SDK', () => {
  it(
    'shows the first prompt without loading @anthropic-ai/sdk; the first model call loads it',
    async () => {
      const log = join(workspace.dir, 'vendor-imports.jsonl');
      const store = join(workspace.dir, 'store');
      const cli = new PtyCli(['chat', '--store', store, '--memory', join(store, 'memory.jsonl')], workspace.dir, {
        NO_COLOR: '1',
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${HOOK}`,
        VENDOR_IMPORTS_LOG: log,
      });
      await cli.waitForScreen('the first prompt', idle);
      const atPrompt = await vendorImports(log);
      expect(atPrompt).not.toContain('@anthropic-ai/sdk');
      expect(atPrompt.filter((specifier) => !specifier.startsWith('@anthropic-ai/sdk/'))).toEqual([]);

      cli.type('what time is it?\r');
      await cli.waitForScreen(
        'the answer',
        (s) => s.all().some((line) => line.includes('(offline demo model) Checking the clock.')) && idle(s),
      );
      const imported = await vendorImports(log);
      expect(imported).toContain('@anthropic-ai/sdk');
      expect(imported.filter((specifier) => !specifier.startsWith('@anthropic-ai/sdk'))).toEqual([]);
      cli.type('\x04');
      expect(await cli.finished).toBe(0);
    },
    SLOW,
  );
});
