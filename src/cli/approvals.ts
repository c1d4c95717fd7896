import { readFile } from 'node:fs/promises';
import { join, posix, relative, resolve, sep } from 'node:path';
import { IndusagiError } from '../errors/index.js';
import type { Agent } from '../runtime/agent/index.js';
import type { PendingApproval, RunSnapshot } from '../runtime/contract/events.js';
import { reachBeyond } from './command-reach.js';

/** Where a workspace keeps the rules, relative to its folder. */
export const SETTINGS_FILE = join('.indusagi', 'settings.json');

/** The tools that wait for approval, and what a rule's pattern is matched against for each. */
const SUBJECTS: Record<string, 'command' | 'path'> = { bash: 'command', 'files.write': 'path', 'files.edit': 'path' };

// A pattern rule approves one simple command: anything that chains, pipes, redirects or substitutes
// could hide a second command behind an allowed first word (`git status; rm -rf ~`).
const SHELL_CONTROL = /[;&|<>`\n\r]|\$\(/;

/** The workspace's settings file cannot be used; nothing was started. */
export class SettingsFileError extends IndusagiError {
  static override readonly errorName: string = 'SettingsFileError';
  constructor(
    readonly path: string,
    detail: string,
  ) {
    super('cli_settings', `${path}: ${detail}`);
  }
}

type Rule = { text: string; tool: string; pattern: RegExp | null };

/**
 * Which waiting tool calls are approved without asking: the rules of the workspace's settings file
 * (`{"allow": ["bash(npm test)", "bash(git diff *)", "files.edit(docs/*)"]}`), and the tools the user
 * answered `a` (always) for in a session. A rule is `TOOL` (every call of it) or `TOOL(PATTERN)`:
 * PATTERN, where `*` stands for any run of characters, must match the whole command (bash) or the
 * workspace-relative path (files.write, files.edit). A pattern never approves a command that chains,
 * pipes, redirects or substitutes, nor one that may reach past what the rule's writer meant
 * (`reachBeyond`: `git diff --output=~/.bashrc`, `git diff --no-index /etc/shadow`, `$HOME`, globs).
 */
export class ApprovalRules {
  private readonly always = new Set<string>();

  private constructor(
    private readonly rules: Rule[],
    private readonly root: string,
  ) {}

  /** The rules of `root`'s settings file; none when it does not exist. A malformed file is a `SettingsFileError`. */
  static async load(root: string): Promise<ApprovalRules> {
    return ApprovalRules.read(root, [join(root, SETTINGS_FILE)]);
  }

  /**
   * The rules of the settings files `paths`, in order, for calls in the workspace `root`: the user's own
   * (in the user's config folder) and, once the user trusted the workspace, the workspace's. A missing
   * file holds none; a malformed one is a `SettingsFileError`.
   */
  static async read(root: string, paths: readonly string[]): Promise<ApprovalRules> {
    const rules: Rule[] = [];
    for (const path of paths) {
      let raw: string;
      try {
        raw = await readFile(path, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw new SettingsFileError(path, `cannot be read (${(error as Error).message})`);
      }
      rules.push(...parseSettings(path, raw));
    }
    return new ApprovalRules(rules, root);
  }

  /** The rules given as strings (tests, embedders); each is checked as a settings file's would be. */
  static of(root: string, allow: string[]): ApprovalRules {
    return new ApprovalRules(parseSettings('rules', JSON.stringify({ allow })), root);
  }

  /** How many rules the settings files hold. */
  get size(): number {
    return this.rules.length;
  }

  /** The rules as written (`bash(npm test)`), for a question about them. */
  texts(): string[] {
    return this.rules.map((rule) => rule.text);
  }

  /** What approves this call without asking (`rule bash(npm test)`, `always for bash in this session`), or undefined. */
  allows(sessionId: string, call: Pick<PendingApproval, 'name' | 'input'>): string | undefined {
    if (this.always.has(`${sessionId}\0${call.name}`)) return `always for ${call.name} in this session`;
    const subject = this.subjectOf(call);
    // Whether a pattern may approve this command at all, asked once and only when a pattern matches it
    // (`reachBeyond` looks at the disk for where paths lead).
    let bounded: boolean | undefined;
    const patternMay = (command: string) => (bounded ??= !SHELL_CONTROL.test(command) && reachBeyond(command, this.root) === undefined);
    for (const rule of this.rules) {
      if (rule.tool !== call.name) continue;
      if (rule.pattern === null) return `rule ${rule.text}`;
      if (subject === undefined || !rule.pattern.test(subject)) continue;
      if (SUBJECTS[rule.tool] === 'command' && !patternMay(subject)) continue;
      return `rule ${rule.text}`;
    }
    return undefined;
  }

  /** `a` at an approval prompt: later calls of `tool` in `sessionId` are approved without asking. */
  allowAlways(sessionId: string, tool: string): void {
    this.always.add(`${sessionId}\0${tool}`);
  }

  private subjectOf(call: Pick<PendingApproval, 'name' | 'input'>): string | undefined {
    const kind = SUBJECTS[call.name];
    const value = typeof call.input === 'object' && call.input !== null ? (call.input as Record<string, unknown>)[kind] : undefined;
    if (typeof value !== 'string') return undefined;
    if (kind === 'command') return value.trim();
    // The path as the workspace resolves it, so `./docs/a.md` and `docs/a.md` are one path.
    const rel = relative(this.root, resolve(this.root, value));
    return rel.split(sep).join(posix.sep);
  }
}

/**
 * Approves, one at a time, the waiting calls `rules` allow, while the run stops at one; `told` hears
 * of each (the call and what allowed it). Returns the snapshot the last decision left: still waiting
 * when a call needs a person.
 */
export async function approveAllowed(
  agent: Agent,
  rules: ApprovalRules,
  snapshot: RunSnapshot,
  told: (call: PendingApproval, because: string) => void,
): Promise<RunSnapshot> {
  let current = snapshot;
  while (current.status === 'waiting') {
    const allowed = agent
      .pendingApprovals()
      .map((call) => ({ call, because: rules.allows(agent.sessionId, call) }))
      .find((entry) => entry.because !== undefined);
    if (allowed === undefined) return current;
    told(allowed.call, allowed.because!);
    current = await agent.approve(allowed.call.approvalId);
  }
  return current;
}

function parseSettings(path: string, raw: string): Rule[] {
  let settings: unknown;
  try {
    settings = JSON.parse(raw);
  } catch (error) {
    throw new SettingsFileError(path, `not JSON (${(error as Error).message})`);
  }
  if (typeof settings !== 'object' || settings === null || Array.isArray(settings)) {
    throw new SettingsFileError(path, 'expected an object such as {"allow": ["bash(npm test)"]}');
  }
  const unknown = Object.keys(settings).filter((key) => key !== 'allow');
  if (unknown.length > 0) throw new SettingsFileError(path, `unknown setting "${unknown[0]}"; the settings are: allow`);
  const allow = (settings as { allow?: unknown }).allow ?? [];
  if (!Array.isArray(allow) || allow.some((rule) => typeof rule !== 'string')) {
    throw new SettingsFileError(path, '"allow" must be a list of rules such as "bash(npm test)" or "files.edit"');
  }
  return (allow as string[]).map((text) => parseRule(path, text));
}

function parseRule(path: string, text: string): Rule {
  const match = /^\s*([a-z][\w.]*)\s*(?:\((.*)\))?\s*$/is.exec(text);
  const tool = match?.[1];
  if (match === null || tool === undefined) throw new SettingsFileError(path, `rule "${text}": write TOOL or TOOL(PATTERN)`);
  if (SUBJECTS[tool] === undefined) {
    throw new SettingsFileError(
      path,
      `rule "${text}": ${tool} is not a tool that asks; rules apply to ${Object.keys(SUBJECTS).join(', ')}`,
    );
  }
  const pattern = match[2];
  if (pattern === undefined) return { text: text.trim(), tool, pattern: null };
  if (pattern.trim() === '') throw new SettingsFileError(path, `rule "${text}": the pattern in parentheses is empty`);
  const source = pattern
    .trim()
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return { text: text.trim(), tool, pattern: new RegExp(`^${source}$`, 's') };
}
