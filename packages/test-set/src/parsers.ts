import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type * as TreeSitter from "web-tree-sitter";

/**
 * The parsers the planners read test files with: tree-sitter grammars for Python, JavaScript,
 * TypeScript and Go, run as WebAssembly (web-tree-sitter). Loading them reads this package's own
 * grammar files, once per process; everything that uses them is pure (texts in, plans out).
 */
export type Grammar = "python" | "javascript" | "typescript" | "tsx" | "go";

export type SyntaxNode = TreeSitter.Node;

/** Parses a text with one grammar and hands its root to `use`; the tree is freed afterwards. Null: the text does not parse cleanly. */
export interface Parsers {
  read<T>(grammar: Grammar, text: string, use: (root: SyntaxNode) => T): T | null;
}

const WASM: Record<Grammar, string> = {
  python: "tree-sitter-python/tree-sitter-python.wasm",
  javascript: "tree-sitter-javascript/tree-sitter-javascript.wasm",
  typescript: "tree-sitter-typescript/tree-sitter-typescript.wasm",
  tsx: "tree-sitter-typescript/tree-sitter-tsx.wasm",
  go: "tree-sitter-go/tree-sitter-go.wasm",
};

/**
 * Resolves web-tree-sitter and the grammars from this package's own folder, also when a bin bundles
 * this module (the grader's bundle): web-tree-sitter finds its own .wasm beside its file, so it is
 * loaded from node_modules, never bundled.
 */
function packageRequire(): NodeRequire {
  const here = createRequire(import.meta.url);
  try {
    return createRequire(here.resolve("@oracle/test-set/package.json"));
  } catch {
    return here;
  }
}

let treeSitter: typeof TreeSitter | null = null;
let init: Promise<void> | null = null;
const languages = new Map<Grammar, Promise<TreeSitter.Language>>();

function language(grammar: Grammar): Promise<TreeSitter.Language> {
  let loaded = languages.get(grammar);
  if (!loaded) {
    const require = packageRequire();
    treeSitter ??= require("web-tree-sitter") as typeof TreeSitter;
    const { Language, Parser } = treeSitter;
    init ??= Parser.init();
    loaded = init.then(() => Language.load(require.resolve(WASM[grammar])));
    languages.set(grammar, loaded);
  }
  return loaded;
}

/**
 * The files a parse depends on besides this package's code: web-tree-sitter's runtime (its module
 * and the .wasm beside it) and every grammar's .wasm, resolved as `loadParsers` resolves them. The
 * seal-plan cache keys on their bytes, so an upgraded parser or grammar is never served a plan
 * the old one made.
 */
export function parserFiles(): string[] {
  const require = packageRequire();
  const runtime = require.resolve("web-tree-sitter");
  return [
    runtime,
    join(dirname(runtime), "tree-sitter.wasm"),
    ...Object.values(WASM).map((file) => require.resolve(file)),
  ];
}

/** The parsers of the grammars named (each loaded once per process). */
export async function loadParsers(grammars: readonly Grammar[]): Promise<Parsers> {
  const loaded = new Map<Grammar, TreeSitter.Language>();
  for (const grammar of new Set(grammars)) loaded.set(grammar, await language(grammar));
  const parser = new treeSitter!.Parser();
  return {
    read(grammar, text, use) {
      const lang = loaded.get(grammar);
      if (!lang) throw new Error(`the ${grammar} grammar was not loaded`);
      parser.setLanguage(lang);
      const tree = parser.parse(text);
      if (!tree) return null;
      try {
        return tree.rootNode.hasError ? null : use(tree.rootNode);
      } finally {
        tree.delete();
      }
    },
  };
}

/** The grammar of a test file by its name, or null. */
export function grammarOf(path: string): Grammar | null {
  if (path.endsWith(".py")) return "python";
  if (path.endsWith(".go")) return "go";
  if (/\.[cm]?jsx?$/.test(path)) return "javascript";
  if (/\.tsx$/.test(path)) return "tsx";
  if (/\.[cm]?ts$/.test(path)) return "typescript";
  return null;
}
