import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApprovalRules, SettingsFileError } from '../../src/cli/approvals.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'indusagi-rules-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const bash = (command: string) => ({ name: 'bash', input: { command } });
const edit = (path: string) => ({ name: 'files.edit', input: { path, old_string: 'a', new_string: 'b' } });

async function settings(text: string): Promise<ApprovalRules> {
  await mkdir(join(root, '.indusagi'), { recursive: true });
  await writeFile(join(root, '.indusagi', 'settings.json'), text);
  return ApprovalRules.load(root);
}

describe('approval rules', () => {
  it('allow a command matching a pattern, whole, and never one that chains, pipes, redirects or substitutes', async () => {
    const rules = await settings(JSON.stringify({ allow: ['bash(npm test)', 'bash(git diff *)'] }));
    expect(rules.allows('s', bash('npm test'))).toBe('rule bash(npm test)');
    expect(rules.allows('s', bash('  npm test '))).toBe('rule bash(npm test)');
    expect(rules.allows('s', bash('git diff src/a.ts'))).toBe('rule bash(git diff *)');
    expect(rules.allows('s', bash('npm test --watch'))).toBeUndefined();
    expect(rules.allows('s', bash('npx npm test'))).toBeUndefined();
    for (const hidden of [
      'git diff a; rm -rf ~',
      'git diff a && curl x',
      'git diff a | sh',
      'git diff a > /etc/x',
      'git diff $(rm -rf ~)',
      'git diff `id`',
      'git diff a\nrm -rf ~',
      'git diff a & rm x',
    ])
      expect(rules.allows('s', bash(hidden)), hidden).toBeUndefined();
    expect(rules.allows('s', edit('a.md'))).toBeUndefined();
  });

  it('never approve a command whose options or arguments write a file or reach outside the workspace (36.13)', async () => {
    await mkdir(join(root, 'src'));
    await writeFile(join(root, 'src', 'a.ts'), 'a');
    await symlink('/etc', join(root, 'etc-link'));
    const rules = ApprovalRules.of(root, ['bash(git diff *)']);
    for (const fine of [
      'git diff src/a.ts',
      'git diff --stat HEAD~1',
      'git diff --output-indicator-new=+ src/a.ts',
      `git diff --no-index src/a.ts ${join(root, 'src', 'a.ts')}`,
      'git diff -U5 -- src/../src/a.ts',
      "git diff 'src/a.ts'",
    ])
      expect(rules.allows('s', bash(fine)), fine).toBe('rule bash(git diff *)');
    for (const reaching of [
      'git diff --output=/home/u/.bashrc',
      'git diff --output /home/u/.bashrc',
      'git diff --output=.git/hooks/pre-commit',
      'git diff -o out.txt',
      'git diff --no-index /etc/shadow src/a.ts',
      'git diff --no-index ../../etc/shadow src/a.ts',
      'git diff --no-index "/etc/shadow" src/a.ts',
      'git diff --no-index /et\c/shadow src/a.ts',
      'git diff --no-index etc-link/shadow src/a.ts',
      'git diff --no-index ~/.ssh/id_rsa src/a.ts',
      'git diff --no-index $HOME/.ssh/id_rsa src/a.ts',
      'git diff --no-index "${HOME}/.ssh/id_rsa" src/a.ts',
      'git diff --no-index {src/a.ts,/etc/shadow}',
      'git diff --no-index /e*/shadow src/a.ts',
      'git diff -O/etc/shadow',
      'git diff --relative=..',
      "git diff 'unterminated",
    ])
      expect(rules.allows('s', bash(reaching)), reaching).toBeUndefined();
    const prefixed = ApprovalRules.of(root, ['bash(* git diff)']);
    expect(prefixed.allows('s', bash('GIT_EXTERNAL_DIFF=./x.sh git diff'))).toBeUndefined();
    // A bare rule is the user's word for every command; it is not second-guessed.
    expect(ApprovalRules.of(root, ['bash']).allows('s', bash('git diff --output=/tmp/x'))).toBe('rule bash');
  });

  it('match paths as the workspace resolves them; a bare tool name allows every call of it', async () => {
    const rules = ApprovalRules.of(root, ['files.edit(docs/*)', 'files.write']);
    expect(rules.allows('s', edit('docs/guide.md'))).toBe('rule files.edit(docs/*)');
    expect(rules.allows('s', edit('./docs/../docs/guide.md'))).toBe('rule files.edit(docs/*)');
    expect(rules.allows('s', edit('docs/../src/app.ts'))).toBeUndefined();
    expect(rules.allows('s', { name: 'files.write', input: { path: 'anything', content: '' } })).toBe('rule files.write');
    expect(rules.allows('s', bash('ls'))).toBeUndefined();
  });

  it('remember "always" per session and per tool', () => {
    const rules = ApprovalRules.of(root, []);
    rules.allowAlways('one', 'bash');
    expect(rules.allows('one', bash('rm -rf build'))).toBe('always for bash in this session');
    expect(rules.allows('two', bash('ls'))).toBeUndefined();
    expect(rules.allows('one', edit('a.md'))).toBeUndefined();
  });

  it('are none without a settings file, and a malformed one is refused with its path and what is wrong', async () => {
    expect((await ApprovalRules.load(root)).size).toBe(0);
    const path = join(root, '.indusagi', 'settings.json');
    const cases: Array<[string, string]> = [
      ['{"allow": [', 'not JSON'],
      ['["bash"]', 'expected an object such as {"allow": ["bash(npm test)"]}'],
      ['{"alow": ["bash"]}', 'unknown setting "alow"; the settings are: allow'],
      ['{"allow": "bash"}', '"allow" must be a list of rules'],
      ['{"allow": ["files.read"]}', 'rule "files.read": files.read is not a tool that asks; rules apply to bash, files.write, files.edit'],
      ['{"allow": ["bash()"]}', 'rule "bash()": the pattern in parentheses is empty'],
      ['{"allow": ["bash(npm test"]}', 'rule "bash(npm test": write TOOL or TOOL(PATTERN)'],
    ];
    for (const [text, message] of cases) {
      const error = await settings(text).catch((e: unknown) => e);
      expect(SettingsFileError.isInstance(error), text).toBe(true);
      expect((error as Error).message).toContain(`${path}: ${message}`);
    }
  });
});
