// The types `tool()` infers, checked the way a consumer's build checks them: tsc over a consumer file
// (tests/tools/fixtures/consumer.ts) with the project's compiler options. Its `@ts-expect-error` lines
// must each still be an error (tsc reports an unused one), and its type assertions must hold.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const fixture = resolve('tests/tools/fixtures/consumer.ts');

function diagnosticsOf(file: string): string[] {
  const config = ts.readConfigFile(resolve('tsconfig.json'), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, resolve('.'));
  const program = ts.createProgram([file], { ...parsed.options, noEmit: true });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file && d.start !== undefined ? `${d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}` : '';
    return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

describe('tool() types, as a consumer compiles them', () => {
  it('infers execute’s input from zod, valibot and arktype schemas, and keeps every expected error an error', () => {
    expect(readFileSync(fixture, 'utf8').match(/@ts-expect-error/g)?.length).toBeGreaterThanOrEqual(4);
    expect(diagnosticsOf(fixture)).toEqual([]);
  }, 300_000);
});
