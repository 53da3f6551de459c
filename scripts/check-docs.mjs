// JSDoc completeness of the public API, enforced. Loads the package's entry points (src/index.ts,
// src/server/index.ts, src/queue/index.ts, src/codegen/index.ts, src/testing/index.ts) with the TypeScript compiler, follows every export
// (re-exports and aliases) to its declaration, and fails when:
//   - an exported symbol has no JSDoc, or its JSDoc has no `@example` tag (for an interface or a
//     type, the JSDoc of the type itself is enough: its members need none);
//   - a public method of an exported class has no JSDoc summary.
// Prints each problem as `name (file:line): what is missing`, then a summary. Exit 1 on problems.
//
//   node scripts/check-docs.mjs [entry...]     (entries default to the three entry points)
import path from 'node:path';
import process from 'node:process';
import ts from 'typescript';

const root = process.cwd();
const ENTRY_POINTS = ['src/index.ts', 'src/server/index.ts', 'src/queue/index.ts', 'src/codegen/index.ts', 'src/testing/index.ts'];
const entries = (process.argv.length > 2 ? process.argv.slice(2) : ENTRY_POINTS).map((entry) => path.resolve(root, entry));

const configPath = ts.findConfigFile(root, ts.sys.fileExists, 'tsconfig.json');
const parsed = configPath
  ? ts.parseJsonConfigFileContent(ts.readConfigFile(configPath, ts.sys.readFile).config, ts.sys, path.dirname(configPath))
  : { options: {} };
const program = ts.createProgram(entries, { ...parsed.options, noEmit: true });
const checker = program.getTypeChecker();
const modules = entries.map((entry) => {
  const source = program.getSourceFile(entry);
  if (!source) {
    console.error(`check-docs: cannot load ${path.relative(root, entry)}`);
    process.exit(2);
  }
  const moduleSymbol = checker.getSymbolAtLocation(source);
  if (!moduleSymbol) {
    console.error(`check-docs: ${path.relative(root, entry)} exports nothing`);
    process.exit(2);
  }
  return moduleSymbol;
});

const problems = [];
let symbolsChecked = 0;
let methodsChecked = 0;

const where = (node) => {
  const file = node.getSourceFile();
  const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
  return `${path.relative(root, file.fileName)}:${line + 1}`;
};

// The JSDoc blocks attached to a declaration; a variable's JSDoc sits on its statement.
function jsDocsOf(node) {
  const target = ts.isVariableDeclaration(node) && ts.isVariableDeclarationList(node.parent) ? node.parent.parent : node;
  return (target.jsDoc ?? []).filter((doc) => ts.isJSDoc(doc));
}

const commentText = (comment) => (typeof comment === 'string' ? comment : (comment ?? []).map((part) => part.text ?? '').join('')).trim();
const hasSummary = (docs) => docs.some((doc) => commentText(doc.comment) !== '');
const isInternal = (docs) => docs.some((doc) => (doc.tags ?? []).some((tag) => tag.tagName.text === 'internal'));
const hasExample = (docs) => docs.some((doc) => (doc.tags ?? []).some((tag) => tag.tagName.text === 'example'));

const isOwnSource = (node) => {
  const file = node.getSourceFile();
  return !file.isDeclarationFile && !file.fileName.includes(`${path.sep}node_modules${path.sep}`) && !file.fileName.includes('/node_modules/');
};

function checkSymbol(name, symbol) {
  const declarations = (symbol.declarations ?? []).filter(isOwnSource);
  if (declarations.length === 0) return;
  symbolsChecked += 1;
  // Overloads and merged declarations: documenting one of them is enough.
  const docs = declarations.flatMap(jsDocsOf);
  const first = declarations[0];
  if (docs.length === 0) problems.push({ name, at: where(first), missing: 'no JSDoc' });
  else if (!hasExample(docs)) problems.push({ name, at: where(first), missing: 'no @example in its JSDoc' });
  for (const declaration of declarations) if (ts.isClassDeclaration(declaration)) checkClassMethods(name, declaration);
}

// Resources hang off the clients (`cloud.jobs`, `registry.nodes`) without being exported: their
// classes are followed through the clients' public properties, so their methods are checked too.
const visitedClasses = new Set();
function checkResources(ownerName, declaration) {
  for (const member of declaration.members) {
    if (!ts.isPropertyDeclaration(member) || !isPublicMember(member) || !member.name || ts.isPrivateIdentifier(member.name)) continue;
    const type = checker.getTypeAtLocation(member);
    for (const target of [type.getSymbol(), ...(type.isUnion() ? type.types.map((t) => t.getSymbol()) : [])]) {
      for (const resource of target?.declarations ?? []) {
        if (!ts.isClassDeclaration(resource) || !isOwnSource(resource) || visitedClasses.has(resource)) continue;
        visitedClasses.add(resource);
        const name = `${ownerName}.${member.name.getText()}`;
        checkClassMethods(name, resource);
        checkResources(name, resource);
      }
    }
  }
}

function isPublicMember(member) {
  if (member.name && ts.isPrivateIdentifier(member.name)) return false;
  const flags = ts.getCombinedModifierFlags(member);
  return (flags & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) === 0;
}

function checkClassMethods(className, declaration) {
  const byName = new Map();
  for (const member of declaration.members) {
    if (!(ts.isMethodDeclaration(member) || ts.isGetAccessorDeclaration(member)) || !isPublicMember(member)) continue;
    // `@internal` members are stripped from the published types (tsconfig `stripInternal`).
    if (isInternal(jsDocsOf(member))) continue;
    const key = member.name.getText();
    byName.set(key, [...(byName.get(key) ?? []), member]);
  }
  for (const [key, members] of byName) {
    methodsChecked += 1;
    if (!hasSummary(members.flatMap(jsDocsOf))) problems.push({ name: `${className}.${key}`, at: where(members[0]), missing: `public ${ts.isGetAccessorDeclaration(members[0]) ? 'getter' : 'method'} without a JSDoc summary` });
  }
}

for (const moduleSymbol of modules) {
  for (const exported of checker.getExportsOfModule(moduleSymbol)) {
    const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    checkSymbol(exported.getName(), target);
    for (const declaration of (target.declarations ?? []).filter(isOwnSource)) {
      if (ts.isClassDeclaration(declaration)) checkResources(exported.getName(), declaration);
    }
  }
}

problems.sort((a, b) => a.at.localeCompare(b.at, 'en', { numeric: true }));
const relativeEntry = entries.map((entry) => path.relative(root, entry)).join(', ');
if (problems.length === 0) {
  console.log(`check-docs: OK: ${symbolsChecked} exported symbols of ${relativeEntry} have JSDoc with @example; ${methodsChecked} public class methods have a summary.`);
  process.exit(0);
}
const byFile = new Map();
for (const problem of problems) {
  const file = problem.at.replace(/:\d+$/, '');
  byFile.set(file, (byFile.get(file) ?? 0) + 1);
}
console.log(`check-docs: ${problems.length} documentation problem${problems.length === 1 ? '' : 's'} in the public API of ${relativeEntry}:\n`);
for (const problem of problems) console.log(`  ${problem.name} (${problem.at}): ${problem.missing}`);
console.log(`\nBy file: ${[...byFile].map(([file, count]) => `${file} ${count}`).join(', ')}`);
console.log(`Checked ${symbolsChecked} exported symbols and ${methodsChecked} public class methods. Every exported symbol needs JSDoc with an @example; every public method of an exported class needs a JSDoc summary.`);
process.exit(1);
