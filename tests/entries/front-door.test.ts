// The package's doors, read the way a user's editor reads them: through the TypeScript checker, names
// and types alike. The root stays small (CONTRACT.md: at most 40 names, the seeds' among them), internals
// stay behind every door, every name has one home (CONTRACT.md's fourth round: the root's starters may
// repeat a name of their home entry, nothing else does), and each door package.json opens is reachable the
// same way from the sources (tsconfig `paths`) and from old resolvers (`typesVersions`), so no entry is
// half-registered.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

const repo = resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as {
  exports: Record<string, string | { types: string; default: string }>;
  typesVersions: { '*': Record<string, string[]> };
};
const tsconfig = ts.parseConfigFileTextToJson('tsconfig.json', readFileSync(join(repo, 'tsconfig.json'), 'utf8')).config as {
  compilerOptions: { paths: Record<string, string[]> };
};

const doors = Object.entries(pkg.exports).flatMap(([key, value]) =>
  typeof value === 'string' ? [] : [{ key, specifier: key === '.' ? 'indusagi' : `indusagi/${key.slice(2)}`, types: value.types }],
);
const sourceOf = (types: string) => {
  const ts_ = types.replace('./dist/', 'src/').replace(/\.d\.ts$/, '.ts');
  try {
    readFileSync(join(repo, ts_));
    return ts_;
  } catch {
    return ts_.replace(/\.ts$/, '.tsx');
  }
};

let names: Map<string, string[]>;

/**
 * The names exported by more than one entry, other than a root starter beside its one home: one line per
 * name, `Name: indusagi/a, indusagi/b`, naming every entry that exports it.
 */
function sharedNames(exported: Map<string, string[]>): string[] {
  const homes = new Map<string, string[]>();
  for (const [door, list] of exported) for (const name of list) homes.set(name, [...(homes.get(name) ?? []), door]);
  return [...homes]
    .filter(([, doors]) => doors.filter((door) => door !== 'indusagi').length > 1)
    .map(([name, doors]) => `${name}: ${doors.join(', ')}`)
    .sort();
}
beforeAll(() => {
  const files = doors.map((door) => join(repo, sourceOf(door.types)));
  const program = ts.createProgram(files, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    jsx: ts.JsxEmit.ReactJSX,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  names = new Map(
    doors.map((door, i) => {
      const symbol = checker.getSymbolAtLocation(program.getSourceFile(files[i])!);
      return [door.specifier, symbol ? checker.getExportsOfModule(symbol).map((s) => s.getName()) : []];
    }),
  );
});

describe('the front door', () => {
  it('has at most 40 names, the seeds among them, and what a hello world with one tool needs', () => {
    const root = names.get('indusagi')!;
    expect(root.length).toBeLessThanOrEqual(40);
    const seeds = ['AgentPart', 'AgentTextPart', 'AgentToolPart', 'AgentMemoryPart', 'AgentContextPart'];
    seeds.push(
      'createContextManager',
      'memorySource',
      'lazyToolSource',
      'lazyToolset',
      'ToolError',
      'toToolset',
      'mergeToolsets',
      'createAgent',
    );
    expect(root).toEqual(expect.arrayContaining([...seeds, 'tool', 'Agent', 'AgentConfig', 'Run', 'RunEvent', 'RunSnapshot', 'Turn']));
  });

  it('gives every exported name one home entry; the root repeats only names of their home', () => {
    expect(sharedNames(names)).toEqual([]);
    // A root name is a starter: it is also exported by the entry named for its concern, its home.
    const elsewhere = new Set([...names].flatMap(([door, list]) => (door === 'indusagi' ? [] : list)));
    expect(names.get('indusagi')!.filter((name) => !elsewhere.has(name))).toEqual([]);
  });

  it('reports a name a second entry exports, with every entry that exports it', () => {
    const doubled = new Map(names);
    doubled.set('indusagi/anthropic', [...names.get('indusagi/anthropic')!, 'ModelCallError']);
    doubled.set('indusagi/chat', [...names.get('indusagi/chat')!, 'createAgent']);
    expect(sharedNames(doubled)).toEqual([
      'ModelCallError: indusagi/anthropic, indusagi/errors',
      'createAgent: indusagi, indusagi/runtime, indusagi/chat',
    ]);
  });

  it('keeps the names CONTRACT.md gives an entry in that entry, and the runtime free of the providers’ names', () => {
    expect(names.get('indusagi/memory')).toEqual(
      expect.arrayContaining(['MemoryStore', 'MemoryRecord', 'RecallOptions', 'createMemoryStore', 'recallMemory', 'rememberFacts']),
    );
    expect(names.get('indusagi/anthropic')).toEqual(expect.arrayContaining(['runAgent', 'RunAgentOptions', 'AnthropicClientLike']));
    expect(names.get('indusagi/runtime')).not.toContain('MissingApiKeyError');
    expect(names.get('indusagi/anthropic')).not.toContain('createAgent');
  });

  it('keeps the runtime row of CONTRACT.md at indusagi/runtime', () => {
    const row = ['createAgent', 'Agent', 'AgentConfig', 'AgentDeps', 'RunEvent', 'RunSnapshot', 'CompactionPolicy', 'Turn', 'Block'];
    row.push('ModelCard', 'ModelInvoker', 'ToolDefinition', 'RunLedger', 'SnapshotAccumulator', 'SessionStore', 'SessionGraph');
    row.push('SessionNode', 'hashNode', 'Migrator', 'estimateContextTokens', 'shouldCompact', 'findCutPoint', 'summarize', 'compact');
    expect(names.get('indusagi/runtime')).toEqual(expect.arrayContaining(row));
  });

  it('shows no internal behind any door', () => {
    const internals = ['queueWrite', 'drainWrites', 'legalCuts', 'settleOpenBatch', 'CHARS_PER_TOKEN', 'runLoop', 'openBatch'];
    internals.push('Compactor', 'graphOf', 'titleOf', 'invokerTraits', 'makeSummaryTurn', 'applyControls');
    for (const [door, exported] of names)
      expect(
        exported.filter((name) => internals.includes(name)),
        door,
      ).toEqual([]);
  });

  it('exports none of the names that were a second word for one concept (docs/packaging.md, "Moved names")', () => {
    const gone = ['defineTool', 'createConductor', 'defineConductor', 'ConductorDeps'];
    gone.push('CondenseResult', 'Condensation', 'CONDENSED_PREFIX', 'CondenseOutcome', 'BrokenCondensationError', 'CondensationMarker');
    // The entry itself went with its word: `indusagi/condensation` is `indusagi/compaction`.
    expect(Object.keys(pkg.exports)).not.toContain('./condensation');
    expect(Object.keys(pkg.exports)).toContain('./compaction');
    for (const [door, exported] of names)
      expect(
        exported.filter((name) => gone.includes(name)),
        door,
      ).toEqual([]);
  });

  it('opens every entry the same way for sources, exports and old resolvers', () => {
    for (const door of doors) {
      const source = `./${sourceOf(door.types)}`;
      expect(tsconfig.compilerOptions.paths[door.specifier], door.specifier).toEqual([source]);
      if (door.key !== '.') expect(pkg.typesVersions['*'][door.key.slice(2)], door.specifier).toEqual([door.types]);
    }
    expect(Object.keys(tsconfig.compilerOptions.paths).sort()).toEqual(doors.map((door) => door.specifier).sort());
  });
});
