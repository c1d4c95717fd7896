import type { LoadReport } from '../contract/session.js';

/**
 * What a load report says went wrong, one plain sentence each; empty for a clean load. For a UI to show
 * when it resumes a session: a damaged file loads what it can, and the user should know what it could not.
 */
export function loadReportProblems(report: LoadReport): string[] {
  const problems: string[] = [];
  const skipped = report.skipped.filter((line) => !(report.truncatedTail && line === report.skipped[report.skipped.length - 1]));
  if (report.truncatedTail) problems.push('the last line was cut short by a crash and was left out');
  if (skipped.length > 0) {
    const lines = skipped.slice(0, 3).map((line) => `line ${line.line} (${line.reason})`);
    problems.push(`${skipped.length} damaged line(s) were skipped: ${lines.join('; ')}${skipped.length > 3 ? '; …' : ''}`);
  }
  if (report.orphans.length > 0)
    problems.push(`${report.orphans.length} turn(s) were left out because an earlier turn they follow is missing`);
  if (report.leafFallback !== null) {
    const restored = report.leafFallback.restored === null ? 'the start' : `node ${report.leafFallback.restored.slice(0, 8)}`;
    problems.push(
      `the latest turn (${report.leafFallback.recorded.slice(0, 8)}) could not be read; the conversation continues from ${restored}`,
    );
  }
  return problems;
}
