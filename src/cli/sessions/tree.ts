import type { SessionNode } from '../../runtime/contract/session.js';
import { summaryBody } from '../../runtime/compaction/index.js';
import type { SessionGraph } from '../../runtime/store/graph.js';
import type { Paint, StyleFormat } from '../style.js';

type OneFormat = Exclude<StyleFormat, readonly unknown[]>;
import { clipLine, excerpt, shortId } from './nodes.js';

type Row = { node: SessionNode; lead: string; indent: string };

/**
 * The session as a tree, one line per node. A straight run of turns stays in one column; where a node
 * has several children each branch is drawn with ├─ / └─. The live leaf is marked `◀ live`, other
 * branch ends `(tip)`, and nodes off the live path are dimmed on a terminal.
 */
export function renderTree(graph: SessionGraph, paint: Paint): string[] {
  return treeRows(graph, paint).map((row) => row.line);
}

/** `renderTree`'s lines with the node each one shows, for a picker. */
export function treeRows(graph: SessionGraph, paint: Paint): Array<{ node: SessionNode; line: string }> {
  const live = new Set(graph.leaf === null ? [] : graph.nodesTo(graph.leaf).map((n) => n.id));
  const rows: Array<{ node: SessionNode; line: string }> = [];
  const stack: Row[] = branches(graph.children(null), '').reverse();
  while (stack.length > 0) {
    const { node, lead, indent } = stack.pop()!;
    const children = graph.children(node.id);
    const marker = node.id === graph.leaf ? paint(['bold', 'green'], '  ◀ live') : children.length === 0 ? paint('dim', '  (tip)') : '';
    const role = node.turn.role === 'user' ? 'user     ' : 'assistant';
    const summary = node.condenses !== undefined;
    const text = summary ? `[summary] ${clipLine(summaryBody(node.turn), 62)}` : excerpt(node.turn);
    // Each piece painted once, and dimmed too off the live path: paint shows colour codes it is handed as text.
    const dim: OneFormat[] = live.has(node.id) ? [] : ['dim'];
    const body = `${paint([...dim, 'yellow'], shortId(node.id))}${paint(dim, ` ${role} `)}${paint(summary ? [...dim, 'magenta'] : dim, text)}`;
    rows.push({ node, line: `${paint('dim', lead)}${body}${marker}` });
    stack.push(...branches(children, indent).reverse());
  }
  return rows;
}

function branches(children: SessionNode[], indent: string): Row[] {
  if (children.length === 1) return [{ node: children[0], lead: indent, indent }];
  return children.map((node, i) => {
    const last = i === children.length - 1;
    return { node, lead: indent + (last ? '└─ ' : '├─ '), indent: indent + (last ? '   ' : '│  ') };
  });
}
