import { posix } from "node:path";
import { loadParsers, type Parsers } from "@oracle/test-set";

/**
 * What new-task reads of Go test files to write an existing suite that builds: the package-level
 * names a test file declares for other files (helpers), and the tests it runs. Read from the
 * tree-sitter tree of each file (@oracle/test-set's Go grammar); a file that does not parse cleanly
 * is read as unknown, which errs towards "used": it keeps a file in place and selects the other
 * tests by name.
 */

type GoNode = Parameters<Parameters<Parsers["read"]>[2]>[0];

let parsers: Promise<Parsers> | null = null;

/** The Go parser, loaded once per process. */
function goParsers(): Promise<Parsers> {
  parsers ??= loadParsers(["go"]);
  return parsers;
}

/** A function `go test` runs or benchmarks by its name (Go's rule: the prefix, then no lowercase letter). */
const TEST_FUNC = /^(Test|Benchmark|Example|Fuzz)($|[^a-z])/;
/** The tests, examples and fuzz targets `-run` selects (benchmarks run only under -bench). */
const RUN_FUNC = /^(Test|Example|Fuzz)/;

/** The leaves that name something: every identifier outside comments and literals. */
const NAME_LEAVES = new Set([
  "identifier",
  "type_identifier",
  "field_identifier",
  "package_identifier",
  "label_name",
]);

/** What one Go file declares at its top level and which names its code uses. */
interface GoFile {
  helpers: string[];
  runs: string[];
  words: Set<string>;
}

function readGoFile(go: Parsers, text: string): GoFile | null {
  return go.read("go", text, (root) => {
    const helpers = new Set<string>();
    const runs = new Set<string>();
    const specNames = (spec: GoNode) => {
      for (const name of spec.childrenForFieldName("name")) if (name) helpers.add(name.text);
    };
    for (const decl of root.namedChildren) {
      if (!decl) continue;
      switch (decl.type) {
        case "function_declaration": {
          const name = decl.childForFieldName("name")?.text;
          if (name === undefined) break;
          if (!TEST_FUNC.test(name) && name !== "init") helpers.add(name);
          // `go test` refuses a test with type parameters; the hand reading never selected one.
          else if (RUN_FUNC.test(name) && name !== "TestMain" && !decl.childForFieldName("type_parameters"))
            runs.add(name);
          break;
        }
        case "var_declaration":
        case "const_declaration":
        case "type_declaration":
          for (const child of decl.namedChildren) {
            if (!child) continue;
            if (child.type === "var_spec_list")
              for (const spec of child.namedChildren) if (spec?.type === "var_spec") specNames(spec);
            if (["var_spec", "const_spec", "type_spec", "type_alias"].includes(child.type)) specNames(child);
          }
          break;
        // methods go with their type
      }
    }
    helpers.delete("_");
    const words = new Set<string>();
    const walk = (node: GoNode) => {
      if (NAME_LEAVES.has(node.type)) words.add(node.text);
      for (const child of node.namedChildren) if (child) walk(child);
    };
    walk(root);
    return { helpers: [...helpers].sort(), runs: [...runs].sort(), words };
  });
}

/**
 * The package-level names a Go file declares that other files can use: functions other than tests,
 * benchmarks, examples, fuzz targets and `init`, and every var, const and type (methods go with
 * their type). Null: the text does not parse.
 */
export async function goHelperNames(text: string): Promise<string[] | null> {
  return readGoFile(await goParsers(), text)?.helpers ?? null;
}

/**
 * The top-level functions `go test` runs in a file: tests, examples and fuzz targets (TestMain
 * aside). Null: the text does not parse.
 */
export async function goRunNames(text: string): Promise<string[] | null> {
  return readGoFile(await goParsers(), text)?.runs ?? null;
}

/** Whether Go code `text` names any of `names` (an identifier, outside comments and literals); true when it does not parse. */
export async function goUses(text: string, names: readonly string[]): Promise<boolean> {
  if (names.length === 0) return false;
  const file = readGoFile(await goParsers(), text);
  return file === null || names.some((n) => file.words.has(n));
}

/**
 * The changed test files (`removed`, base versions) the existing suite must keep for its packages to
 * build: those declaring a name that another test file of the same folder left in place uses (and,
 * in turn, those a kept file needs). A file whose text is unknown or does not parse is kept when its
 * folder has others, and counts as using every name.
 */
export async function goFilesToKeep(
  removed: readonly string[],
  staying: readonly string[],
  texts: ReadonlyMap<string, string>,
): Promise<string[]> {
  const go = await goParsers();
  const read = new Map<string, GoFile | null>();
  const fileOf = (path: string) => {
    if (!read.has(path)) {
      const text = texts.get(path);
      read.set(path, text === undefined ? null : readGoFile(go, text));
    }
    return read.get(path)!;
  };
  const dir = (p: string) => posix.dirname(p);
  const keep = new Set<string>();
  let users = [...staying];
  for (let grew = true; grew; ) {
    grew = false;
    for (const file of removed) {
      if (keep.has(file)) continue;
      const sameDir = users.filter((u) => u !== file && dir(u) === dir(file));
      if (sameDir.length === 0) continue;
      const helpers = fileOf(file)?.helpers ?? null;
      const used =
        helpers === null ||
        (helpers.length > 0 &&
          sameDir.some((u) => {
            const user = fileOf(u);
            return user === null || helpers.some((n) => user.words.has(n));
          }));
      if (used) {
        keep.add(file);
        users = [...users, file];
        grew = true;
      }
    }
  }
  return removed.filter((f) => keep.has(f));
}

/** The Go of the go-gotestsum image (Debian bookworm's golang-1.19, images/go-gotestsum/apt-packages.txt). */
export const IMAGE_GO = "1.19.8";

/** The go.mod directives Go 1.19 reads; any other (toolchain, godebug, tool, ignore) stops it. */
const GO119_DIRECTIVES = new Set(["module", "go", "require", "exclude", "replace", "retract"]);

/**
 * What in go.mod keeps the go-gotestsum image's Go 1.19.8 from loading the module at all (verified
 * in the image): a `go` line in the Go 1.21+ toolchain form (`go 1.21.0`, `go 1.21rc1`: "invalid go
 * version … must match format 1.23") and a directive it does not know (`toolchain go1.21.5`:
 * "unknown directive: toolchain"). A newer two-part line (`go 1.22`) is no reason: before Go 1.21
 * the line is advisory, and Go 1.19.8 builds such a module unless its code uses something newer
 * (then the build fails with "note: module requires Go 1.22", which validation shows).
 */
export function goModWarnings(text: string): string[] {
  const warnings: string[] = [];
  let inBlock = false;
  for (const raw of text.split("\n")) {
    const line = raw.replace(/\/\/.*$/, "").trim();
    if (line === "") continue;
    if (inBlock) {
      if (line === ")") inBlock = false;
      continue;
    }
    const [directive = "", ...rest] = line.split(/\s+/);
    if (rest.at(-1) === "(") inBlock = true;
    const args = rest.filter((word) => word !== "(").join(" ");
    if (directive === "go" && !/^[1-9]\d*\.(0|[1-9]\d*)$/.test(args))
      warnings.push(
        `go.mod's 'go ${args}' line is in the form of Go 1.21 and later, which the go-gotestsum image's Go ${IMAGE_GO} cannot read ("invalid go version"): no package will build; give --image an image with Go 1.21 or later`,
      );
    else if (!GO119_DIRECTIVES.has(directive))
      warnings.push(
        `go.mod has a '${directive}' directive (Go 1.21 and later), which the go-gotestsum image's Go ${IMAGE_GO} does not know ("unknown directive: ${directive}"): no package will build; give --image an image with Go 1.21 or later`,
      );
  }
  return warnings;
}
