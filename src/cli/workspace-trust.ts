import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ApprovalRules, SETTINGS_FILE } from './approvals.js';
import type { Ask } from './mcp/chat.js';
import { CONSENT_FILE } from './mcp/config-files.js';
import { terminalText } from './safe-text.js';
import { TrustStore, USER_SETTINGS } from './trust.js';

/** Whether a workspace's own files count, where that was decided, and what the user should hear about it. */
export type WorkspaceTrust = {
  store: TrustStore;
  /** The user trusted this workspace: its `.indusagi/settings.json` and `.indusagi/mcp-consent.json` apply. */
  trusted: boolean;
  /** Lines for the user: files left unused, and why. */
  notes: string[];
  /** The approval rules that apply: the user's own, then (trusted) the workspace's. */
  rules: ApprovalRules;
};

/**
 * Decides whether the files the workspace `root` (its real path) ships for itself count: its approval
 * rules and its kept `.mcp.json` answers would let a cloned repository approve its own commands. They
 * count only in a workspace the user trusted, a decision kept in the user's config folder by real
 * path; on a terminal (`ask`) the question is put once, showing what the files would do; anywhere
 * else (`-p`, piped) they are left unused and a note says so. The user's own rules always apply.
 */
export async function settleTrust(root: string, env: NodeJS.ProcessEnv, ask?: Ask): Promise<WorkspaceTrust> {
  const store = TrustStore.of(env);
  const userRules = store.dir === null ? [] : [join(store.dir, USER_SETTINGS)];
  const shipped = [SETTINGS_FILE, CONSENT_FILE].filter((file) => existsSync(join(root, file)));
  let trusted = (await store.stateOf(root)) === 'trusted';
  const notes: string[] = [];
  if (!trusted && shipped.length > 0) {
    if (ask !== undefined && store.dir !== null && (await store.stateOf(root)) === 'undecided') {
      trusted = await ask(await trustQuestion(root, shipped));
      await store.decide(root, trusted);
    }
    if (!trusted) {
      const why =
        store.dir === null
          ? 'no folder of your own to trust it in (set HOME or XDG_CONFIG_HOME)'
          : `this folder is not trusted; "indusagi trust" trusts it`;
      notes.push(`${shipped.join(' and ')} of this folder ${shipped.length === 1 ? 'is' : 'are'} ignored: ${why}`);
    }
  }
  const rules = await ApprovalRules.read(root, trusted ? [...userRules, join(root, SETTINGS_FILE)] : userRules);
  return { store, trusted, notes, rules };
}

/** What trusting `root` would let its files do, as a question. */
export async function trustQuestion(root: string, shipped: readonly string[]): Promise<string> {
  const lines = [`This folder (${terminalText(root)}) is not trusted yet. Its own files would:`];
  if (shipped.includes(SETTINGS_FILE)) {
    let rules: string;
    try {
      rules = (await ApprovalRules.load(root)).texts().join(', ') || 'nothing';
    } catch (error) {
      rules = `nothing yet: ${(error as Error).message}`;
    }
    lines.push(`  approve without asking (${SETTINGS_FILE}): ${terminalText(rules)}`);
  }
  if (shipped.includes(CONSENT_FILE)) lines.push(`  start the MCP servers of .mcp.json without asking (${CONSENT_FILE})`);
  lines.push('Trust this folder? Its files then apply in every chat and -p run here. [y/N] ');
  return lines.join('\n');
}
