// The package as `npm pack` makes it, packed once per test run and shared by every file that installs
// it (the pack test, the docs test): each pack is a full prepack build, a minute on a loaded 2-core
// machine. The first file to ask packs; the others wait for its result file to appear. The folder is
// the run's (pack-setup.ts names it and removes it when the run ends).
import { execFile } from 'node:child_process';
import { existsSync, watch } from 'node:fs';
import { chmod, cp, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { promisify } from 'node:util';
import { inject } from 'vitest';

const run = promisify(execFile);
const repo = resolve(import.meta.dirname, '../..');

export type PackedFile = { path: string; size: number };
export type Packed = { tarball: string; files: PackedFile[] };
export type Manifest = {
  version: string;
  bin: Record<string, string>;
  exports: Record<string, string | Record<string, string>>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
};

/** The run's tarball, packed by whichever file asked first. */
export async function packedTarball(): Promise<Packed> {
  const dir = inject('packDir');
  const result = join(dir, 'packed.json');
  const failed = join(dir, 'failed.txt');
  let mine = true;
  try {
    await mkdir(join(dir, 'lock'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    mine = false;
  }
  if (mine) {
    try {
      const packed = await pack(dir);
      await writeFile(`${result}.tmp`, JSON.stringify(packed));
      await run('mv', [`${result}.tmp`, result]);
      return packed;
    } catch (error) {
      await writeFile(failed, String((error as Error).stack ?? error));
      throw error;
    }
  }
  await new Promise<void>((done) => {
    const watcher = watch(dir, () => {
      if (existsSync(result) || existsSync(failed)) (watcher.close(), done());
    });
    if (existsSync(result) || existsSync(failed)) (watcher.close(), done());
  });
  if (existsSync(failed)) throw new Error(`packing failed in another test file: ${await readFile(failed, 'utf8')}`);
  return JSON.parse(await readFile(result, 'utf8')) as Packed;
}

// Packs a copy of the working tree, so the prepack build cannot disturb the repo's own dist/. Generated
// state is left behind, then planted back: a stale build output that the prepack build must remove, and
// a session directory that must not ship (the pack test checks both).
async function pack(dir: string): Promise<Packed> {
  const source = join(dir, 'source');
  await cp(repo, source, {
    recursive: true,
    filter: (path) => {
      const parts = relative(repo, path).split(sep);
      return (
        !parts.includes('node_modules') && !parts.includes('.git') && !['dist', '.indusagi', 'coverage', '.doc-examples'].includes(parts[0])
      );
    },
  });
  await symlink(join(repo, 'node_modules'), join(source, 'node_modules'), 'dir');
  await mkdir(join(source, 'dist'));
  await writeFile(join(source, 'dist/stale-from-an-old-build.js'), 'export {};\n');
  await mkdir(join(source, '.indusagi/sessions'), { recursive: true });
  await writeFile(join(source, '.indusagi/sessions/planted.jsonl'), '{}\n');
  const { stdout } = await run('npm', ['pack', '--json', '--ignore-scripts=false', '--pack-destination', dir], {
    cwd: source,
    maxBuffer: 16 * 1024 * 1024,
  });
  const [packed] = JSON.parse(stdout) as Array<{ filename: string; files: PackedFile[] }>;
  await rm(source, { recursive: true, force: true });
  return { tarball: join(dir, packed.filename), files: packed.files };
}

/**
 * Installs the tarball into `project` as npm installs it: unpacked into node_modules/indusagi, bins
 * linked and made executable. The packages `select` names are linked from this repo's node_modules,
 * which makes the install offline and fast (`npm install --offline` would need registry metadata that
 * `npm ci` never caches); anything the package imports without declaring it is still missing, since
 * nothing else is on the installed package's resolution path.
 */
export async function installTarball(
  tarball: string,
  project: string,
  select: (pkg: Manifest) => { required: string[]; optional: string[] },
): Promise<Manifest> {
  const target = join(project, 'node_modules/indusagi');
  await mkdir(target, { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', target, '--strip-components=1']);
  const pkg = JSON.parse(await readFile(join(target, 'package.json'), 'utf8')) as Manifest;
  const { required, optional } = select(pkg);
  for (const name of new Set([...required, ...optional])) {
    const source = join(repo, 'node_modules', name);
    if (!existsSync(source)) {
      if (required.includes(name)) throw new Error(`${name} is not in node_modules: run npm install`);
      continue;
    }
    await mkdir(dirname(join(project, 'node_modules', name)), { recursive: true });
    await symlink(source, join(project, 'node_modules', name), 'dir');
  }
  await mkdir(join(project, 'node_modules/.bin'));
  for (const [name, path] of Object.entries(pkg.bin)) {
    await chmod(join(target, path), 0o755);
    await symlink(join('..', 'indusagi', path), join(project, 'node_modules/.bin', name));
  }
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: basename(project), private: true, type: 'module' }));
  return pkg;
}
