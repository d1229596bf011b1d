import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import { loadParsers, type Parsers } from "../parsers.js";
import { planSeals } from "../seal/seal-run.js";

/**
 * The JS runtime in a TypeScript test file, type-checked by the real compiler under its strictest
 * options (ts-jest type-checks a test file before it runs): a helper the file does not use, an
 * unused parameter or an unchecked index fails the whole hidden suite's compilation.
 */
let parsers: Parsers;
beforeAll(async () => {
  parsers = await loadParsers(["typescript"]);
});

const STRICTEST: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  noUnusedLocals: true,
  noUnusedParameters: true,
  noImplicitReturns: true,
  noImplicitOverride: true,
  noFallthroughCasesInSwitch: true,
  noUncheckedIndexedAccess: true,
  noPropertyAccessFromIndexSignature: true,
  exactOptionalPropertyTypes: true,
  allowUnreachableCode: false,
  allowUnusedLabels: false,
  isolatedModules: true,
  skipLibCheck: true,
  target: ts.ScriptTarget.ES2022,
  types: ["node"],
  typeRoots: [join(dirname(createRequire(import.meta.url).resolve("@types/node/package.json")), "..")],
};

const GLOBALS = `declare function describe(name: string, fn: () => void): void;
declare function it(name: string, fn: () => void): void;
declare function expect(actual: unknown): any;
`;
const LIB = `export function slugify(s: string): string { return s.trim().split(/\\s+/).join("-"); }
export function ranges(): number[][] { return [[1, 5]]; }
`;
/** Only `__oracleSeal`: a literal expected value. */
const ONE = (from: string) => `import { slugify } from "${from}";

describe("lib", () => {
  it("slugs", () => {
    expect(slugify("hello   world")).toBe("hello-world");
  });
});
`;
/** Every helper: a literal (`__oracleSeal`), a truth (`__oracleTruth`), two computed sides (`__oracleSide`). */
const ALL = (from: string) => `import { slugify, ranges } from "${from}";

describe("lib", () => {
  it("all", () => {
    expect(slugify("a b")).toBe("a-b");
    expect(slugify("a")).toBeTruthy();
    expect(ranges()).toEqual(ranges());
  });
});
`;

/** The compiler's messages for one sealed test file beside its library, under `options`. */
function diagnose(test: string, options: ts.CompilerOptions, esm: boolean, seal = true): string[] {
  const path = "test/lib.test.ts";
  const sealed = planSeals(parsers, [{ path, text: test }], { framework: "jest" }).files[0]!.text;
  expect(sealed).toContain("// --- oracle seal runtime");
  const dir = mkdtempSync(join(tmpdir(), "oracle-seal-ts-"));
  try {
    const files: Record<string, string> = {
      "package.json": JSON.stringify(esm ? { type: "module" } : {}),
      "globals.d.ts": GLOBALS,
      "src/lib.ts": LIB,
      [path]: seal ? sealed : test,
    };
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      writeFileSync(join(dir, name), text);
    }
    const roots = ["globals.d.ts", "src/lib.ts", path].map((f) => join(dir, f));
    const program = ts.createProgram(roots, options);
    return ts
      .getPreEmitDiagnostics(program)
      .map((d) => `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("the JS seal runtime under TypeScript's strictest checks", () => {
  const cjs: ts.CompilerOptions = {
    ...STRICTEST,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
  };
  const esm: ts.CompilerOptions = {
    ...STRICTEST,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    verbatimModuleSyntax: true,
  };
  const es5: ts.CompilerOptions = {
    ...cjs,
    target: ts.ScriptTarget.ES5,
    esModuleInterop: true,
    resolveJsonModule: true,
  };

  it("the check is sound: the unsealed files compile, an unused local does not", () => {
    for (const test of [ONE, ALL]) {
      expect(diagnose(test("../src/lib"), cjs, false, false)).toEqual([]);
      expect(diagnose(test("../src/lib.js"), esm, true, false)).toEqual([]);
    }
    expect(diagnose(`${ONE("../src/lib")}const unused = 1;\n`, cjs, false, false)).toEqual([
      "TS6133: 'unused' is declared but its value is never read.",
    ]);
  });

  for (const [name, test] of [
    ["one helper", ONE],
    ["every helper", ALL],
  ] as const) {
    it(`${name}, compiled to CommonJS (ts-jest): no error`, () => {
      expect(diagnose(test("../src/lib"), cjs, false)).toEqual([]);
    });
    it(`${name}, an ES module under verbatimModuleSyntax: no error`, () => {
      expect(diagnose(test("../src/lib.js"), esm, true)).toEqual([]);
    });
    it(`${name}, css-what's tsconfig (ES5, default lib, esModuleInterop): no error`, () => {
      expect(diagnose(test("../src/lib"), es5, false)).toEqual([]);
    });
  }
});
