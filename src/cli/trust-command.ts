import { existsSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { join } from 'node:path';
import type { TrustCommand } from './args.js';
import { SETTINGS_FILE } from './approvals.js';
import { CliUsageError } from './errors.js';
import { CONSENT_FILE } from './mcp/config-files.js';
import { terminalText } from './safe-text.js';
import { TrustStore } from './trust.js';
import { trustQuestion } from './workspace-trust.js';

/**
 * `indusagi trust [DIR]` records that the user trusts the folder (its real path), so its own
 * `.indusagi/settings.json` rules and `.indusagi/mcp-consent.json` answers apply; `--revoke` takes
 * that back; `--list` prints every decision. The decisions live in the user's config folder.
 */
export async function runTrust(command: TrustCommand, env: NodeJS.ProcessEnv, write: (text: string) => void): Promise<void> {
  const store = TrustStore.of(env);
  if (command.action === 'list') {
    const decisions = await store.list();
    if (decisions.length === 0) write(`no folder trusted or refused yet${store.file === null ? '' : ` (${store.file})`}\n`);
    for (const decision of decisions)
      write(terminalText(`${decision.trusted ? 'trusted' : 'refused'}  ${decision.root}  ${decision.decidedAt}\n`));
    return;
  }
  let root: string;
  try {
    root = await realpath(command.dir);
  } catch (error) {
    throw new CliUsageError(`trust: ${command.dir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const file = await store.decide(root, command.action === 'grant');
  if (command.action === 'revoke') {
    write(terminalText(`${root} is no longer trusted: its own settings and answers are ignored (${file})\n`));
    return;
  }
  write(terminalText(`trusted ${root} (kept in ${file})\n`));
  const shipped = [SETTINGS_FILE, CONSENT_FILE].filter((name) => existsSync(join(root, name)));
  // Said once more, after the fact: what the folder's files now do.
  if (shipped.length > 0) write(`${(await trustQuestion(root, shipped)).split('\n').slice(1, -1).join('\n')}\n`);
}
