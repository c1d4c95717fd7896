import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeWorkspace, runCli, useWorkspace } from './cli-process.js';
import { PtyCli } from './pty.js';
import { idle, modalRows } from './screen-helpers.js';
import { alive, untilEnded, untilFile } from './tools/processes.js';

// Tool calls waiting for approval on a terminal: one key decides (y, n, a), the prompt shows what the
// call would do, and a bash call is stopped with everything it started when Ctrl-C interrupts it.
const SLOW = 300_000;
const ASKS = 'y yes · n no · a always for bash in this session · Esc later';

const workspace = useWorkspace();
const storeArgs = () => workspace.storeArgs().args;
const has = (line: string) => (s: { all(): string[] }) => s.all().includes(line);

describe('approvals on a terminal', () => {
  it(
    'y runs a bash call, n refuses it (it never runs), a runs it and every later bash call of the session without asking',
    async () => {
      const cli = new PtyCli(['chat', ...storeArgs()], workspace.dir, { NO_COLOR: '1' });
      await cli.waitForScreen('the first prompt', idle);

      cli.type('run echo approved-$((40 + 2))\r');
      await cli.waitForScreen('the approval prompt', (s) => modalRows(s).includes(ASKS));
      expect(modalRows(cli.screen)).toEqual(['? bash wants to run, in the workspace folder:', '  $ echo approved-$((40 + 2))', ASKS]);
      cli.type('y');
      await cli.waitForScreen('the approved call', (s) => has('  ✓ bash: approved-42')(s) && idle(s));
      expect(cli.screen.all()).toContain('  ✓ approved bash');

      cli.type('run touch refused.txt\r');
      await cli.waitForScreen('the second prompt', (s) => modalRows(s).includes(ASKS));
      cli.type('n');
      await cli.waitForScreen(
        'the refusal',
        (s) => has('  ✗ rejected bash')(s) && s.all().some((l) => l.includes('did not go through')) && idle(s),
      );
      await expect(readFile(join(workspace.dir, 'refused.txt'))).rejects.toThrow();

      cli.type('run echo first\r');
      await cli.waitForScreen('the third prompt', (s) => modalRows(s).includes(ASKS));
      cli.type('a');
      await cli.waitForScreen('the first call', (s) => has('  ✓ bash: first')(s) && idle(s));
      cli.type('run echo second\r');
      await cli.waitForScreen('the second call', (s) => has('  ✓ bash: second')(s) && idle(s));
      expect(cli.screen.all()).toContain('  ✓ bash allowed (always for bash in this session)');
      // Asked three times, not four.
      expect(cli.output.split('a always for bash in this session').length - 1).toBeGreaterThanOrEqual(3);
      expect(cli.screen.all().filter((l) => l === '  ✓ approved bash')).toHaveLength(1);

      // A result of several lines is one line until Ctrl-O shows it whole, and Ctrl-O again folds it.
      cli.type('run seq 1 3\r');
      await cli.waitForScreen('the collapsed result', (s) => has('  ✓ bash: 1 (+2 more lines · Ctrl-O)')(s) && idle(s));
      cli.type('\x0f');
      await cli.waitForScreen('the result whole', (s) => has('  ✓ bash: 3 lines (Ctrl-O to collapse)')(s) && has('    │ 3')(s));
      cli.type('\x0f');
      await cli.waitForScreen('the result folded again', (s) => has('  ✓ bash: 1 (+2 more lines · Ctrl-O)')(s) && !has('    │ 3')(s));
      cli.type('\x04');
      expect(await cli.finished).toBe(0);
    },
    SLOW,
  );

  it(
    'shows the diff a files.edit would make, and makes it on y',
    async () => {
      await writeFile(join(workspace.dir, 'notes.txt'), 'hello world\nsecond line\n');
      const cli = new PtyCli(['chat', ...storeArgs()], workspace.dir, { NO_COLOR: '1' });
      await cli.waitForScreen('the first prompt', idle);
      cli.type('replace world with there in notes.txt\r');
      await cli.waitForScreen('the approval prompt', (s) =>
        modalRows(s).some((l) => l.startsWith('y yes · n no · a always for files.edit')),
      );
      expect(modalRows(cli.screen)).toEqual([
        '? files.edit wants to edit notes.txt:',
        '  @@ line 1',
        '  - hello world',
        '  + hello there',
        '    second line',
        '',
        'y yes · n no · a always for files.edit in this session · Esc later',
      ]);
      cli.type('y');
      await cli.waitForScreen('the edit', (s) => s.all().includes('  ✓ files.edit: Edited notes.txt: replaced one occurrence') && idle(s));
      expect(await readFile(join(workspace.dir, 'notes.txt'), 'utf8')).toBe('hello there\nsecond line\n');
      cli.type('\x04');
      expect(await cli.finished).toBe(0);
    },
    SLOW,
  );

  it(
    "Ctrl-C during an approved bash call stops the run and ends the call's whole process group",
    async () => {
      const cli = new PtyCli(['chat', ...storeArgs()], workspace.dir, { NO_COLOR: '1' });
      await cli.waitForScreen('the first prompt', idle);
      cli.type('run sleep 300 & sleep 300 & echo "$$ $(jobs -p)" > pids.tmp && mv pids.tmp pids; wait\r');
      await cli.waitForScreen('the approval prompt', (s) => modalRows(s).includes(ASKS));
      cli.type('y');
      await untilFile(workspace.dir, 'pids');
      const pids = (await readFile(join(workspace.dir, 'pids'), 'utf8')).trim().split(/\s+/).map(Number);
      expect(pids).toHaveLength(3);
      for (const pid of pids) expect(alive(pid)).toBe(true);
      cli.type('\x03');
      await cli.waitForScreen(
        'the interruption',
        (s) => s.all().includes('⏹ interrupted; the unfinished reply was not saved (Ctrl-C again to exit)') && idle(s),
      );
      // SIGTERM went to the whole group; each process ends (within the SIGKILL grace at the latest). The
      // wait is the assertion: a process left running holds it until the test's limit fails the test.
      await Promise.all(pids.map(untilEnded));
      cli.type('\x04');
      expect(await cli.finished).toBe(0);
    },
    SLOW,
  );
});

describe('approval rules in .indusagi/settings.json', () => {
  it(
    'approve a matching command without asking once the folder is trusted, in a chat and with -p; a compound command still asks (-p: exit 3)',
    async () => {
      const ruled = await makeWorkspace();
      try {
        await mkdir(join(ruled.dir, '.indusagi'));
        await writeFile(join(ruled.dir, '.indusagi', 'settings.json'), JSON.stringify({ allow: ['bash(echo *)'] }));
        const args = ['--store', join(ruled.dir, 'store'), '--memory', join(ruled.dir, 'memory.jsonl')];
        // The folder's own rules count only once the user trusted it (tests/cli/workspace-trust.test.ts).
        const user = { XDG_CONFIG_HOME: join(ruled.dir, 'user-config') };
        expect((await runCli(['trust'], ruled.dir, [], user)).code).toBe(0);

        const print = await runCli(['-p', 'run echo by-rule', ...args], ruled.dir, [], user);
        expect(print.code).toBe(0);
        expect(print.stdout).toBe('(offline demo model) The command printed:\nby-rule\n');
        expect(print.stderr).toBe('indusagi: bash {"command":"echo by-rule"} allowed (rule bash(echo *))\n');

        const compound = await runCli(['-p', 'run echo a; touch b', ...args], ruled.dir, [], user);
        expect(compound.code).toBe(3);
        await expect(readFile(join(ruled.dir, 'b'))).rejects.toThrow();

        const cli = new PtyCli(['chat', ...args], ruled.dir, { NO_COLOR: '1', ...user });
        await cli.waitForScreen('the note on the rules', (s) => s.all().includes('1 approval rule(s) in force (settings.json)') && idle(s));
        cli.type('run echo in-chat\r');
        await cli.waitForScreen('the call', (s) => s.all().includes('  ✓ bash: in-chat') && idle(s));
        expect(cli.screen.all()).toContain('  ✓ bash allowed (rule bash(echo *))');
        expect(cli.output).not.toContain('a always for bash');
        cli.type('\x04');
        expect(await cli.finished).toBe(0);

        await writeFile(join(ruled.dir, '.indusagi', 'settings.json'), '{"allow": ["bash(echo *"]}');
        const refused = await runCli(['chat', ...args], ruled.dir, [], user);
        expect(refused.code).toBe(2);
        expect(refused.stderr).toBe(
          `indusagi: ${join(ruled.dir, '.indusagi', 'settings.json')}: rule "bash(echo *": write TOOL or TOOL(PATTERN)\n`,
        );
      } finally {
        await ruled.cleanup();
      }
    },
    SLOW,
  );
});
