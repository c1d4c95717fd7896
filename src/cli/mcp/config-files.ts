import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { McpServerConfig } from '../../mcp/index.js';
import { parseMcpServers } from '../../mcp/config.js';
import { CliUsageError } from '../errors.js';

/** The workspace's own server list, in the format Claude Code reads. */
export const PROJECT_FILE = '.mcp.json';
/** Where a workspace kept the answers to "start the servers of .mcp.json?" before they moved to the user's config folder. */
export const CONSENT_FILE = '.indusagi/mcp-consent.json';

/** A servers file read and checked: its servers, and a digest of its bytes (what a consent is given to). */
export type ServersFile = { path: string; servers: Record<string, McpServerConfig>; digest: string; json: unknown };

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
    return { path, servers: parseMcpServers(json, path, env), digest: createHash('sha256').update(text).digest('hex'), json };
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

/**
 * What a repository's `.indusagi/mcp-consent.json` holds for this version of its `.mcp.json`: read only
 * in a workspace the user trusted (a cloned repository can ship any answer), and never written again,
 * since answers now live in the user's config folder (`TrustStore`).
 */
export async function workspaceConsentFor(root: string, file: ServersFile): Promise<boolean | undefined> {
  let text: string;
  try {
    text = await readFile(resolve(root, CONSENT_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CliUsageError(`${join(root, CONSENT_FILE)}: cannot be read (${(error as Error).message})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // A broken file in a trusted workspace answers nothing: the question is asked, the safe side.
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const answer = (parsed as Record<string, unknown>)[file.digest];
  return typeof answer === 'boolean' ? answer : undefined;
}

const PLAIN = /^[\w@%+=:,./-]+$/;
const quoted = (text: string) => (PLAIN.test(text) ? text : JSON.stringify(text));
const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}/g;

/**
 * What each server of a servers file will run with, as the file writes it (before `${VAR}` is
 * expanded, so no secret is printed): the command and its arguments or the URL, every `env` variable
 * (`NODE_OPTIONS`, `LD_PRELOAD` change what any command does), `cwd`, every header, and then each
 * variable of the user's environment the entry reads and where it goes. Lines for the consent
 * question; the caller makes them safe for a terminal.
 */
export function describeEntries(json: unknown): string[] {
  const servers = (json as { mcpServers?: Record<string, Record<string, unknown>> }).mcpServers ?? {};
  const lines: string[] = [];
  for (const [name, entry] of Object.entries(servers)) {
    if (entry.disabled === true) continue;
    const reads: string[] = [];
    const note = (value: unknown, where: string) => {
      if (typeof value === 'string') for (const match of value.matchAll(VARIABLE)) reads.push(`${match[1]} (in ${where})`);
      else if (Array.isArray(value)) value.forEach((item, i) => note(item, `${where}[${i}]`));
      else if (typeof value === 'object' && value !== null) for (const [key, item] of Object.entries(value)) note(item, `${where}.${key}`);
    };
    const strings = (value: unknown): Array<[string, string]> =>
      typeof value === 'object' && value !== null ? Object.entries(value as Record<string, string>) : [];
    if (typeof entry.command === 'string') {
      const args = Array.isArray(entry.args) ? (entry.args as string[]) : [];
      lines.push(`${name}: runs ${[entry.command, ...args].map((part) => quoted(String(part))).join(' ')}`);
      for (const [key, value] of strings(entry.env)) lines.push(`    env ${key}=${quoted(String(value))}`);
      if (entry.cwd !== undefined) lines.push(`    cwd ${quoted(String(entry.cwd))}`);
      note(entry.command, 'command');
      note(entry.args, 'args');
      note(entry.env, 'env');
      note(entry.cwd, 'cwd');
    } else {
      lines.push(`${name}: connects to ${String(entry.url)}`);
      for (const [key, value] of strings(entry.headers)) lines.push(`    header ${key}: ${String(value)}`);
      note(entry.url, 'url');
      note(entry.headers, 'headers');
    }
    for (const read of reads) lines.push(`    sends your environment's ${read}`);
  }
  return lines;
}
