/**
 * Every Temporal name lives in core/temporal/names.ts (STYLE.md §9). This test parses every .ts file of the repository
 * and fails on a string or template literal anywhere else that spells one of those names: a namespace, a workflow
 * type, a search attribute, a workflow id prefix (`debt-${id}`), or a task queue where it is used as one.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import ts from 'typescript';
import { NAMESPACES, SEARCH_ATTRIBUTES, TASK_QUEUES, WORKFLOW_TYPES, workflowIds } from '../../core/temporal/names';

const ROOT = path.resolve(__dirname, '..', '..');
const NAMES_MODULE = path.join('core', 'temporal', 'names.ts');

/** Names that may appear nowhere but the names module, whatever the context. */
const RESERVED = new Map<string, string>([
  ...Object.values(NAMESPACES).map((name) => [name, 'namespace'] as const),
  ...Object.values(WORKFLOW_TYPES).map((name) => [name, 'workflow type'] as const),
  ...SEARCH_ATTRIBUTES.map((name) => [name, 'search attribute'] as const),
]);
/** `webhook-delivery-`, `debt-`, …: a literal equal to one, or a template that starts with one, builds a workflow id. */
const ID_PREFIXES = new Set(Object.values(workflowIds).map((id) => id('')));
/**
 * Task queue names are ordinary words too (the `sandbox` mode, guide slugs, npm scripts), so they count only where
 * the literal is held by something named after a queue: a `taskQueue:` property, a `queue` variable or parameter,
 * a comparison with one, an argument of a function such as `uniqueTaskQueue(…)`, or a list named `WORKERS`.
 */
const QUEUES = new Set<string>(Object.values(TASK_QUEUES));
const QUEUE_HOLDER = /queue|^workers$/i;

/** Literals allowed outside the names module, each with the reason; none is needed today. Keep it short. */
const ALLOWED: { file: string; text: string; why: string }[] = [];

export interface Finding {
  file: string;
  line: number;
  text: string;
  kind: string;
}

function nameOf(node: ts.Node | undefined): string | undefined {
  if (!node) return undefined;
  if (ts.isIdentifier(node) || ts.isStringLiteral(node) || ts.isPrivateIdentifier(node)) return node.text;
  if (ts.isPropertyAccessExpression(node)) return node.name.text;
  if (ts.isElementAccessExpression(node)) return nameOf(node.argumentExpression);
  if (ts.isCallExpression(node)) return nameOf(node.expression);
  return undefined;
}

const COMPARISONS = new Set([
  ts.SyntaxKind.EqualsEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsEqualsToken,
  ts.SyntaxKind.EqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsToken,
]);

/** The name of what holds this literal: the property, variable, parameter, callee or compared operand. */
function holderName(literal: ts.Node): string | undefined {
  let node = literal;
  let parent = node.parent;
  // Look through wrappers that do not change what the value is used for.
  while (
    ts.isArrayLiteralExpression(parent) ||
    ts.isParenthesizedExpression(parent) ||
    ts.isAsExpression(parent) ||
    ts.isSatisfiesExpression(parent) ||
    (ts.isConditionalExpression(parent) && parent.condition !== node)
  ) {
    node = parent;
    parent = node.parent;
  }
  if (ts.isPropertyAssignment(parent) || ts.isVariableDeclaration(parent) || ts.isParameter(parent)) {
    return nameOf(parent.name);
  }
  if (ts.isBinaryExpression(parent) && COMPARISONS.has(parent.operatorToken.kind)) {
    return nameOf(parent.left === node ? parent.right : parent.left);
  }
  if (ts.isCallExpression(parent) && parent.arguments.includes(node as ts.Expression)) return nameOf(parent.expression);
  if (ts.isCaseClause(parent)) return nameOf(parent.parent.parent.expression);
  return undefined;
}

function classify(node: ts.Node): { text: string; kind: string } | undefined {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
    const { text } = node;
    const reserved = RESERVED.get(text);
    if (reserved) return { text, kind: reserved };
    if (ID_PREFIXES.has(text)) return { text, kind: 'workflow id prefix' };
    if (QUEUES.has(text) && QUEUE_HOLDER.test(holderName(node) ?? '')) return { text, kind: 'task queue' };
    return undefined;
  }
  if (ts.isTemplateExpression(node)) {
    const prefix = [...ID_PREFIXES].find((p) => node.head.text === p);
    if (prefix) return { text: `${prefix}\${…}`, kind: 'workflow id prefix' };
    if (RESERVED.has(node.head.text)) return { text: node.head.text, kind: RESERVED.get(node.head.text)! };
  }
  return undefined;
}

/** Every literal of `source` that spells a Temporal name. */
export function findTemporalNames(file: string, source: string): Finding[] {
  const sourceFile = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const findings: Finding[] = [];
  const visit = (node: ts.Node): void => {
    const found = classify(node);
    if (found) {
      const { line } = sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile));
      findings.push({ file, line: line + 1, ...found });
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return findings;
}

function typeScriptFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) return [];
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return typeScriptFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

describe('Temporal names come only from core/temporal/names.ts', function () {
  it('finds, in a snippet, each kind of name the repository scan looks for', function () {
    const snippet = [
      "const a = 'client-api-sandbox';",
      "start('webhookDeliveryWorkflow', { taskQueue: 'webhooks', workflowId: `debt-${id}` });",
      "const key = defineSearchAttributeKey('DebtStatus', SearchAttributeType.KEYWORD);",
      "if (queue === 'lifecycle') uniqueTaskQueue('sandbox');",
      "const mode = 'sandbox'; const guides = ['webhooks', 'sandbox']; const WORKERS = ['lifecycle'];",
    ].join('\n');
    const found = findTemporalNames('snippet.ts', snippet).map((f) => `${f.line}:${f.text}`);
    expect(found).to.deep.equal([
      '1:client-api-sandbox',
      '2:webhookDeliveryWorkflow',
      '2:webhooks',
      '2:debt-${…}',
      '3:DebtStatus',
      '4:lifecycle',
      '4:sandbox',
      '5:lifecycle',
    ]);
  });

  it('finds none anywhere else in the repository', function () {
    const files = typeScriptFiles(ROOT).filter((file) => path.relative(ROOT, file) !== NAMES_MODULE);
    expect(files.length).to.be.greaterThan(50);
    const findings = files
      .flatMap((file) => findTemporalNames(path.relative(ROOT, file), fs.readFileSync(file, 'utf8')))
      .filter((f) => !ALLOWED.some((a) => a.file === f.file && a.text === f.text));
    expect(findings.map((f) => `${f.file}:${f.line} '${f.text}' (${f.kind})`)).to.deep.equal([]);
  });
});
