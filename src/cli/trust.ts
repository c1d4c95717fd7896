// The user's own configuration, outside every workspace: which workspaces the user trusted, which
// versions of a workspace's .mcp.json the user allowed, and the user's own approval rules. A cloned
// repository can ship any file inside itself, so nothing inside a workspace may approve that
// workspace's tool calls or start its servers until the user said so here.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { IndusagiError } from '../errors/index.js';

/** The files kept in the user's config folder. */
export const TRUST_FILE = 'trust.json';
export const CONSENT_STORE = 'mcp-consent.json';
export const USER_SETTINGS = 'settings.json';

/** A file of the user's config folder cannot be read or written; nothing was decided from it. */
export class UserConfigError extends IndusagiError {
  static override readonly errorName: string = 'UserConfigError';
  constructor(
    readonly path: string,
    detail: string,
  ) {
    super('cli_user_config', `${path}: ${detail}`);
  }
}

/**
 * The user's config folder: `$XDG_CONFIG_HOME/indusagi`, else `$HOME/.config/indusagi` (where the
 * Anthropic SDK's profiles are looked for too); null when neither is set, and then nothing can be
 * trusted or remembered.
 */
export function userConfigDir(env: NodeJS.ProcessEnv): string | null {
  const xdg = env.XDG_CONFIG_HOME?.trim();
  // The XDG spec says a relative value is to be ignored: it would point into the current folder.
  if (xdg !== undefined && xdg !== '' && isAbsolute(xdg)) return join(xdg, 'indusagi');
  const home = env.HOME?.trim();
  if (home !== undefined && home !== '' && isAbsolute(home)) return join(home, '.config', 'indusagi');
  return null;
}

/** What the user decided about a workspace: trusted, refused, or never asked. */
export type TrustState = 'trusted' | 'refused' | 'undecided';

type TrustRecord = { trusted: boolean; decidedAt: string };

/**
 * The trust decisions of the user's config folder, keyed by a workspace's real path (symlinks
 * resolved, so a link to a trusted folder is the folder and a renamed clone is not).
 */
export class TrustStore {
  constructor(readonly dir: string | null) {}

  static of(env: NodeJS.ProcessEnv): TrustStore {
    return new TrustStore(userConfigDir(env));
  }

  /** Where the decisions are kept; null without a config folder. */
  get file(): string | null {
    return this.dir === null ? null : join(this.dir, TRUST_FILE);
  }

  async stateOf(realRoot: string): Promise<TrustState> {
    if (this.file === null) return 'undecided';
    const record = (await readRecords(this.file))[realRoot];
    return record === undefined ? 'undecided' : record.trusted ? 'trusted' : 'refused';
  }

  /** Records the decision for `realRoot`; a `UserConfigError` when there is no config folder to keep it in. */
  async decide(realRoot: string, trusted: boolean): Promise<string> {
    const file = this.file;
    if (file === null) throw new UserConfigError('trust', 'neither XDG_CONFIG_HOME nor HOME is set, so no decision can be kept');
    const records = await readRecords(file);
    records[realRoot] = { trusted, decidedAt: new Date().toISOString() };
    await writeJson(file, { workspaces: records });
    return file;
  }

  /** Every decision, for `indusagi trust --list`. */
  async list(): Promise<Array<{ root: string } & TrustRecord>> {
    if (this.file === null) return [];
    return Object.entries(await readRecords(this.file)).map(([root, record]) => ({ root, ...record }));
  }

  /** What the user answered for this version (`digest`) of `realRoot`'s .mcp.json, or undefined. */
  async consentFor(realRoot: string, digest: string): Promise<boolean | undefined> {
    if (this.dir === null) return undefined;
    return (await readConsents(join(this.dir, CONSENT_STORE)))[realRoot]?.[digest];
  }

  /** Keeps the answer about a version of `realRoot`'s .mcp.json; a `UserConfigError` without a config folder. */
  async recordConsent(realRoot: string, digest: string, allowed: boolean): Promise<void> {
    if (this.dir === null)
      throw new UserConfigError(CONSENT_STORE, 'neither XDG_CONFIG_HOME nor HOME is set, so the answer cannot be kept');
    const file = join(this.dir, CONSENT_STORE);
    const answers = await readConsents(file);
    answers[realRoot] = { ...answers[realRoot], [digest]: allowed };
    await writeJson(file, answers);
  }
}

async function readJson(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UserConfigError(path, `cannot be read (${(error as Error).message})`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    // Not overwritten and not read as "nothing decided": the user's own file, for the user to mend.
    throw new UserConfigError(path, `not JSON (${(error as Error).message}); mend or remove it`);
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

async function readRecords(path: string): Promise<Record<string, TrustRecord>> {
  const json = await readJson(path);
  if (json === undefined) return {};
  const workspaces = isObject(json) ? json.workspaces : undefined;
  if (!isObject(workspaces)) throw new UserConfigError(path, 'expected {"workspaces": {PATH: {"trusted": true|false}}}');
  const out: Record<string, TrustRecord> = {};
  for (const [root, record] of Object.entries(workspaces)) {
    if (!isObject(record) || typeof record.trusted !== 'boolean')
      throw new UserConfigError(path, `the entry for ${JSON.stringify(root)} needs "trusted": true or false`);
    out[root] = { trusted: record.trusted, decidedAt: typeof record.decidedAt === 'string' ? record.decidedAt : '' };
  }
  return out;
}

async function readConsents(path: string): Promise<Record<string, Record<string, boolean>>> {
  const json = await readJson(path);
  if (json === undefined) return {};
  if (
    !isObject(json) ||
    !Object.values(json).every((answers) => isObject(answers) && Object.values(answers).every((v) => typeof v === 'boolean'))
  )
    throw new UserConfigError(path, 'expected {WORKSPACE PATH: {DIGEST OF .mcp.json: true|false}}');
  return json as Record<string, Record<string, boolean>>;
}

async function writeJson(path: string, value: unknown): Promise<void> {
  await mkdir(join(path, '..'), { recursive: true, mode: 0o700 });
  // Replaced whole, so a crash mid-write leaves the previous decisions.
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, path);
}
