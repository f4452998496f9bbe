// The layer check: reads every import in src/ at the level of its top-level folder and fails when
// folders import each other in a circle, or when a folder imports one above it in the layer order
// without a written reason. The order and the reasons are read from docs/layout.md (its "Layers"
// list and its table "Imports that run back up, and why"), so the rule is written down once, where
// a reader looks for it, and moving a folder up or down is an edit to that list.
//
// Usage: node scripts/check-layers.mjs [--root DIR]   (DIR holds src/ and docs/layout.md; default:
// this repository). Exit 0 when the graph keeps the rule, 1 with one line per offending import.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const args = process.argv.slice(2);
const rootAt = args.indexOf('--root');
const root = rootAt >= 0 ? resolve(args[rootAt + 1]) : resolve(dirname(fileURLToPath(import.meta.url)), '..');
const srcDir = join(root, 'src');
const layoutText = readFileSync(join(root, 'docs', 'layout.md'), 'utf8');

// "## Layers" holds a numbered list, lowest first; peers share a line: "2. `auth`, `tls`".
function readLayers(text) {
  const section = text.split(/^## /m).find((part) => part.startsWith('Layers'));
  if (!section) throw new Error('docs/layout.md has no "## Layers" section');
  const level = new Map();
  let index = 0;
  for (const line of section.split('\n')) {
    const item = /^\d+\.\s+(.*)$/.exec(line.trim());
    if (!item) continue;
    for (const [, name] of item[1].matchAll(/`([^`/]+)\/?`/g)) level.set(name, index);
    index += 1;
  }
  if (level.size === 0) throw new Error('docs/layout.md "## Layers" lists no folders');
  return level;
}

// The table under the heading "Imports that run back up, and why": rows `| from | to | why |`.
function readAllowed(text) {
  const start = text.search(/^#+ Imports that run back up, and why/m);
  const allowed = new Set();
  if (start < 0) return allowed;
  const after = text.slice(start).split('\n').slice(1);
  for (const line of after) {
    if (/^#/.test(line)) break;
    const cells = line.split('|').map((cell) => cell.trim().replace(/`/g, '').replace(/\/$/, ''));
    if (cells.length < 4 || cells[1] === 'from' || /^-+$/.test(cells[1]) || cells[1] === '') continue;
    allowed.add(`${cells[1]} -> ${cells[2]}`);
  }
  return allowed;
}

function listFiles(dir, out = []) {
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) listFiles(path, out);
    else if (/\.(ts|mts|js|mjs)$/.test(entry) && !entry.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

// Sources import with `.js` (NodeNext); the file on disk is `.ts`.
function resolveImport(from, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(from), specifier);
  const tries = [base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts'), base, `${base}.ts`, join(base, 'index.ts')];
  return tries.find((path) => existsSync(path) && statSync(path).isFile()) ?? base.replace(/\.js$/, '.ts');
}

// The top-level folder under src/, or undefined for a root file (a package entry) or a path
// outside src/ (generated/ may be imported from anywhere).
function folderOf(path) {
  const rel = relative(srcDir, path);
  if (rel.startsWith('..')) return undefined;
  const parts = rel.split(sep);
  return parts.length > 1 ? parts[0] : undefined;
}

// Tarjan's strongly connected components over the folder graph: every component of two or more
// folders is one circle.
function circles(graph) {
  let counter = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (node) => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node), low.get(next)));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node), index.get(next)));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return found;
}

// Names the package entry exports, resolved through `export *` with the type checker.
function countEntryNames(entry) {
  if (!existsSync(entry)) return undefined;
  const program = ts.createProgram([entry], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(entry);
  const symbol = file && checker.getSymbolAtLocation(file);
  if (!symbol) return { values: 0, types: 0 };
  let values = 0;
  let types = 0;
  for (const name of checker.getExportsOfModule(symbol)) {
    const target = name.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(name) : name;
    if (target.flags & ts.SymbolFlags.Value) values += 1;
    else types += 1;
  }
  return { values, types };
}

const level = readLayers(layoutText);
const allowed = readAllowed(layoutText);
const problems = [];
const graph = new Map();
const edgeFiles = new Map();
let backEdges = 0;
let backImports = 0;
const seenBack = new Set();

for (const file of listFiles(srcDir)) {
  const from = folderOf(file);
  if (from === undefined) continue;
  if (!level.has(from)) {
    const message = `src/${from}/ is not in the layer list of docs/layout.md`;
    if (!problems.includes(message)) problems.push(message);
    continue;
  }
  const imports = ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles;
  for (const { fileName } of imports) {
    const target = resolveImport(file, fileName);
    if (target === undefined) continue;
    const edge = `${relative(root, file)} → ${relative(root, target)}`;
    const insideSrc = !relative(srcDir, target).startsWith('..');
    const to = folderOf(target);
    if (to === undefined) {
      if (insideSrc) problems.push(`entry import: ${edge} (a folder must not import the package entry)`);
      continue;
    }
    if (to === from) continue;
    if (!graph.has(from)) graph.set(from, new Set());
    graph.get(from).add(to);
    const key = `${from} -> ${to}`;
    if (!edgeFiles.has(key)) edgeFiles.set(key, []);
    edgeFiles.get(key).push(edge);
    if (level.has(to) && level.get(to) > level.get(from) && !allowed.has(key)) {
      if (!seenBack.has(key)) backEdges += 1;
      seenBack.add(key);
      backImports += 1;
      problems.push(`back edge ${from} → ${to}: ${edge}`);
    }
  }
}

const found = circles(graph);
for (const component of found) {
  const members = new Set(component);
  const lines = [...edgeFiles].filter(([key]) => {
    const [a, b] = key.split(' -> ');
    return members.has(a) && members.has(b);
  });
  problems.push(
    `folder circle ${component.join(' ↔ ')}:\n${lines.flatMap(([, files]) => files.map((edge) => `    ${edge}`)).join('\n')}`,
  );
}

const names = args.includes('--no-count') ? undefined : countEntryNames(join(srcDir, 'index.ts'));
for (const problem of problems) console.error(problem);
console.log(
  `layers: ${found.length} folder circle(s), ${backEdges} back edge(s) (${backImports} imports) not in docs/layout.md, ` +
    `${allowed.size} allowed back edge(s)` +
    (names ? `; src/index.ts exports ${names.values + names.types} names (${names.values} values, ${names.types} types)` : ''),
);
process.exit(problems.length ? 1 : 0);
