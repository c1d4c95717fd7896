import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { McpServerConfig } from '../../mcp/index.js';
import { parseMcpServers } from '../../mcp/config.js';
import { CliUsageError } from '../errors.js';

/** The workspace's own server list, in the format Claude Code reads. */
export const PROJECT_FILE = '.mcp.json';
/** Where the answer to "start the servers of .mcp.json?" is kept, per version of the file. */
export const CONSENT_FILE = '.indusagi/mcp-consent.json';

/** A servers file read and checked: its servers, and a digest of its bytes (what a consent is given to). */
export type ServersFile = { path: string; servers: Record<string, McpServerConfig>; digest: string };

/** Reads an `mcpServers` file; anything wrong with it is a `CliUsageError` naming the file. */
export async function readServersFile(path: string, env: NodeJS.ProcessEnv): Promise<ServersFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new CliUsageError(`--mcp: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new CliUsageError(`${path} is not JSON: ${(error as Error).message}`);
  }
  try {
    return { path, servers: parseMcpServers(json, path, env), digest: createHash('sha256').update(text).digest('hex') };
  } catch (error) {
    throw new CliUsageError((error as Error).message);
  }
}

/** The workspace's `.mcp.json`, or null when it has none. */
export async function readProjectFile(cwd: string, env: NodeJS.ProcessEnv): Promise<ServersFile | null> {
  const path = join(cwd, PROJECT_FILE);
  try {
    await readFile(path);
  } catch {
    return null;
  }
  return readServersFile(path, env);
}

/** What was answered for this version of `.mcp.json`: true (start), false (do not), or undefined (never asked). */
export async function consentFor(cwd: string, file: ServersFile): Promise<boolean | undefined> {
  const answers = await readConsents(cwd);
  return answers[file.digest];
}

export async function recordConsent(cwd: string, file: ServersFile, allowed: boolean): Promise<void> {
  const path = resolve(cwd, CONSENT_FILE);
  const answers = { ...(await readConsents(cwd)), [file.digest]: allowed };
  await mkdir(dirname(path), { recursive: true });
  // Replaced whole, so a crash mid-write leaves the previous answers.
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(answers, null, 2)}\n`);
  await rename(temporary, path);
}

async function readConsents(cwd: string): Promise<Record<string, boolean>> {
  try {
    const parsed = JSON.parse(await readFile(resolve(cwd, CONSENT_FILE), 'utf8')) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
    return Object.fromEntries(Object.entries(parsed).filter(([, value]) => typeof value === 'boolean')) as Record<string, boolean>;
  } catch {
    // No answers yet (or a file someone broke): the question is asked again, which is the safe side.
    return {};
  }
}

/** One line per server, for the question and for notes: its name and what it runs or reaches. */
export function describeServers(servers: Record<string, McpServerConfig>): string[] {
  return Object.entries(servers).map(([name, config]) =>
    'command' in config ? `${name}: ${[config.command, ...(config.args ?? [])].join(' ')}` : `${name}: ${String(config.url)}`,
  );
}
