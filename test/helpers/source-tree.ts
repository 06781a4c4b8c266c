/**
 * The project's own sources read as TypeScript syntax (the compiler's parser, no type checking):
 * for the tests that hold the code to its shape, test/layers.test.ts and test/sizes.test.ts.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, posix, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** The repository root (tests run from dist/test/). */
export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

export interface SourceFile {
  /** Path from the repository root, with forward slashes: "src/client/session.ts". */
  path: string;
  text: string;
  ast: ts.SourceFile;
}

/** Every .ts file under `dir` (a path from the root, e.g. "src"), parsed, sorted by path. */
export function readSources(dir: string): SourceFile[] {
  const files: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const full = join(at, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) files.push(full);
    }
  };
  walk(join(ROOT, dir));
  return files.sort().map((full) => {
    const text = readFileSync(full, "utf8");
    const path = relative(ROOT, full).split(sep).join("/");
    return { path, text, ast: ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true) };
  });
}

export interface ImportEdge {
  /** The importing file and the imported one, both "src/…/x.ts". */
  from: string;
  to: string;
  /** `import type`, `export type`, or every named binding marked `type`: erased at run time. */
  typeOnly: boolean;
  /** 1-based line of the import statement. */
  line: number;
}

/** The relative imports and re-exports of a file (static and dynamic), resolved to .ts paths. */
export function importsOf(file: SourceFile): ImportEdge[] {
  const edges: ImportEdge[] = [];
  const add = (node: ts.Node, specifier: ts.Expression | undefined, typeOnly: boolean) => {
    if (!specifier || !ts.isStringLiteral(specifier) || !specifier.text.startsWith(".")) return;
    const to = posix.normalize(posix.join(dirname(file.path), specifier.text));
    const line = file.ast.getLineAndCharacterOfPosition(node.getStart()).line + 1;
    edges.push({ from: file.path, to: to.replace(/\.js$/, ".ts"), typeOnly, line });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) {
      add(node, node.moduleSpecifier, importIsTypeOnly(node));
    } else if (ts.isExportDeclaration(node)) {
      add(node, node.moduleSpecifier, exportIsTypeOnly(node));
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node, node.arguments[0], false);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node, node.argument.literal as ts.Expression, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(file.ast);
  return edges;
}

function importIsTypeOnly(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return false; // `import "./x.js"` runs the module
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  const bindings = clause.namedBindings;
  if (!bindings || ts.isNamespaceImport(bindings)) return false;
  return bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly);
}

function exportIsTypeOnly(node: ts.ExportDeclaration): boolean {
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  if (!clause || !ts.isNamedExports(clause)) return false;
  return clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly);
}

export interface FunctionSpan {
  /** "src/…/x.ts:LINE name" */
  where: string;
  lines: number;
}

/** Every function, method, accessor, constructor and arrow function, with its length in lines. */
export function functionsOf(file: SourceFile): FunctionSpan[] {
  const spans: FunctionSpan[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const start = file.ast.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      const end = file.ast.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
      spans.push({ where: `${file.path}:${start} ${functionName(node)}`, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(file.ast);
  return spans;
}

function functionName(node: ts.SignatureDeclaration): string {
  if (ts.isConstructorDeclaration(node)) return "constructor";
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) {
    return parent.name.getText();
  }
  if (ts.isPropertyDeclaration(parent)) return parent.name.getText();
  return "(anonymous)";
}

/** Lines in a file as `wc -l` counts them (a last line without its newline still counts). */
export function lineCount(text: string): number {
  if (text.length === 0) return 0;
  const newlines = text.split("\n").length - 1;
  return text.endsWith("\n") ? newlines : newlines + 1;
}
