/**
 * Every field has one writer: the class that declares it. A class that writes fields it
 * inherited, or reaches through a collaborator to set that collaborator's fields, splits one
 * piece of state across two files; the client session was once two classes sharing about twenty
 * protected fields that way. Collaborators talk through methods and narrow interfaces instead
 * (client/handshake.ts' HandshakeHost, client/pipeline.ts' PipelineHost). Records of plain data
 * handed around as locals (a Transaction, a counters object) are not classes and are not held to
 * this.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import ts from "typescript";
import { readSources, type SourceFile } from "./helpers/source-tree.js";

/** Files where a class may not write a field of an object it holds (`this.a.b = …`) either. */
const NO_REACH_THROUGH = "src/client/";

function isAssignment(kind: ts.SyntaxKind): boolean {
  return kind >= ts.SyntaxKind.FirstAssignment && kind <= ts.SyntaxKind.LastAssignment;
}

/** The expressions a node writes to: the left of an assignment, the operand of ++ and --. */
function writeTarget(node: ts.Node): ts.Expression | null {
  if (ts.isBinaryExpression(node) && isAssignment(node.operatorToken.kind)) return node.left;
  const step = (op: ts.SyntaxKind) =>
    op === ts.SyntaxKind.PlusPlusToken || op === ts.SyntaxKind.MinusMinusToken;
  if (
    (ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) &&
    step(node.operator)
  ) {
    return node.operand;
  }
  return null;
}

/** The names a class declares as fields: properties, parameter properties, setters. */
function declaredFields(cls: ts.ClassLikeDeclaration): Set<string> {
  const names = new Set<string>();
  // An Error subclass names itself: `name` is Error's field made for that (ECMA-262 §20.5.3.3).
  // An error class is told by its name (UsageError, SourceError extends UsageError, …).
  const extendsError = cls.heritageClauses?.some((h) =>
    h.types.some((t) => t.expression.getText().endsWith("Error")),
  );
  if (extendsError) names.add("name");
  for (const member of cls.members) {
    if (ts.isPropertyDeclaration(member) || ts.isSetAccessorDeclaration(member)) {
      names.add(member.name.getText());
    } else if (ts.isConstructorDeclaration(member)) {
      for (const p of member.parameters) {
        if (ts.getModifiers(p)?.length) names.add(p.name.getText());
      }
    }
  }
  return names;
}

const hasModifier = (node: ts.Node, kind: ts.SyntaxKind) =>
  (ts.canHaveModifiers(node) && ts.getModifiers(node)?.some((m) => m.kind === kind)) ?? false;

/** Protected fields a subclass could write: protected and not readonly. */
function protectedMutable(file: SourceFile, cls: ts.ClassLikeDeclaration, out: string[]): void {
  const nodes: ts.Node[] = [...cls.members];
  for (const member of cls.members) {
    if (ts.isConstructorDeclaration(member)) nodes.push(...member.parameters);
  }
  for (const node of nodes) {
    const field = ts.isPropertyDeclaration(node) || ts.isParameter(node);
    if (!field || !hasModifier(node, ts.SyntaxKind.ProtectedKeyword)) continue;
    if (hasModifier(node, ts.SyntaxKind.ReadonlyKeyword)) continue;
    out.push(`${where(file, node)}: protected mutable field ${node.name.getText()}`);
  }
}

function where(file: SourceFile, node: ts.Node): string {
  const line = file.ast.getLineAndCharacterOfPosition(node.getStart()).line + 1;
  return `${file.path}:${line}`;
}

/** Every write in `file` to a field its class did not declare, or through a held object. */
export function foreignWrites(file: SourceFile): string[] {
  const found: string[] = [];
  const strict = file.path.startsWith(NO_REACH_THROUGH);
  const inClass = (cls: ts.ClassLikeDeclaration) => {
    const own = declaredFields(cls);
    const name = cls.name?.getText() ?? "(anonymous class)";
    protectedMutable(file, cls, found);
    const walk = (node: ts.Node) => {
      if (ts.isClassLike(node)) return inClass(node); // its own fields, its own check
      // A function expression or declaration has its own `this`.
      if (ts.isFunctionExpression(node) || ts.isFunctionDeclaration(node)) return;
      const target = writeTarget(node);
      if (target && ts.isPropertyAccessExpression(target)) {
        const holder = target.expression;
        const field = target.name.getText();
        if (holder.kind === ts.SyntaxKind.ThisKeyword && !own.has(field)) {
          found.push(`${where(file, node)}: ${name} writes this.${field}, declared elsewhere`);
        }
        const held = ts.isPropertyAccessExpression(holder) ? holder : null;
        if (strict && held && held.expression.kind === ts.SyntaxKind.ThisKeyword) {
          found.push(`${where(file, node)}: ${name} writes ${target.getText()}, another's field`);
        }
      }
      ts.forEachChild(node, walk);
    };
    for (const member of cls.members) ts.forEachChild(member, walk);
  };
  const visit = (node: ts.Node) => {
    if (ts.isClassLike(node)) inClass(node);
    else ts.forEachChild(node, visit);
  };
  visit(file.ast);
  return found;
}

function parsed(path: string, text: string): SourceFile {
  return { path, text, ast: ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true) };
}

describe("field owners", () => {
  test("no class under src/ writes a field another class declared", () => {
    const sources = readSources("src");
    assert.ok(sources.some((f) => f.path === "src/client/session.ts"));
    assert.deepEqual(sources.flatMap(foreignWrites), []);
  });

  test("the checker flags inherited writes, protected mutable state and reaching through", () => {
    const text = `
      class Base {
        protected count = 0;
        protected readonly fixed = 1;
        constructor(protected level: number) {}
      }
      class Child extends Base {
        private own = 0;
        set size(v: number) {}
        bump(): void {
          this.own++;
          this.size = 2;
          this.count += 1;
          const f = function (this: { x: number }) { this.x = 1; };
          const g = () => { this.level = 3; };
        }
      }
      class Failure extends Error {
        constructor(m: string) { super(m); this.name = "Failure"; this.message = "?"; }
      }
      class Holder {
        private readonly parser = { keep: false };
        private readonly rows: { n: number }[] = [];
        set(): void {
          this.parser.keep = true;
          const row = this.rows[0];
          row.n++;
        }
      }`;
    assert.deepEqual(foreignWrites(parsed("src/client/x.ts", text)), [
      "src/client/x.ts:3: protected mutable field count",
      "src/client/x.ts:5: protected mutable field level",
      "src/client/x.ts:13: Child writes this.count, declared elsewhere",
      "src/client/x.ts:15: Child writes this.level, declared elsewhere",
      "src/client/x.ts:19: Failure writes this.message, declared elsewhere",
      "src/client/x.ts:25: Holder writes this.parser.keep, another's field",
    ]);
    // Outside client/ a held record's counters may be bumped in place (RunStats' counts).
    assert.deepEqual(
      foreignWrites(parsed("src/stats/x.ts", text)).filter((w) => w.includes("Holder")),
      [],
    );
  });
});
