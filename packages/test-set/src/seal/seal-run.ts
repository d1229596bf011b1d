import { createHash } from "node:crypto";
import { sealGo } from "../go/seal.js";
import {
  assertPatchedIn,
  chaiPluginIn,
  environmentOwnIn,
  equalityTestersIn,
  expectRebound,
  extendedMatchers,
  jsTitles,
  sealJs,
  setupModuleIn,
} from "../js/seal.js";
import type { Parsers } from "../parsers.js";
import { grammarOf } from "../parsers.js";
import { assertsSwappedIn, sealPython, subclassesIn } from "../python/seal.js";
import type { AddedFile, FileSeals, SealSite, TestRef, Unsealed } from "./plan.js";
import { readAround, readInSiblings } from "./strength.js";

/** A run's seals: the sealed files' texts, files added beside them, and what the host judges. */
export interface SealRun {
  /**
   * The plan's identity ({@link planFingerprint}), the same with or without the sweep's demotions:
   * the sweep's record (the sites to leave unsealed, what decided each FAIL_TO_PASS test) holds for
   * this plan only (rules.ts `seal.gold`).
   */
  fingerprint: string;
  files: FileSeals[];
  added: AddedFile[];
  sites: SealSite[];
  tests: Array<{ test: TestRef; keys: string[] }>;
  unsealed: Unsealed[];
  /** Files that could not be read and stay as they are. */
  unread: string[];
}

const JS_GRAMMARS = new Set(["javascript", "typescript", "tsx"]);

/**
 * The planners' and the host's rule version, part of every plan's fingerprint: raise it when a
 * change to a planner, a runtime or the host's equality would make an old sweep record say something
 * else (which sites gold could not pass, what decided a FAIL_TO_PASS test at baseline) while the
 * plan's sites and texts stay the same.
 */
export const SEAL_PLAN_VERSION = 2;

/**
 * SHA-256 over the rule version and everything of the plan the host reads: each sealed file's path,
 * its sites as found (demoted ones too), its text as it enters the container (the runtime's with
 * it), each site as the judge reads it (kind, expected value or rows, options, strength,
 * `afterUnsealed`), each test's keys, the unsealed tests and the added files. A record the sweep
 * made before a planner change (a seal since marked `afterUnsealed`) is for another plan then.
 */
export function planFingerprint(run: Omit<SealRun, "fingerprint">): string {
  const hash = createHash("sha256");
  hash.update(`oracle seal plan ${SEAL_PLAN_VERSION}\n`);
  for (const f of run.files) hash.update(`${f.path}\n${f.planned.join("\n")}\n`);
  hash.update(
    JSON.stringify({
      files: run.files.map((f) => [f.path, f.text]),
      added: run.added.map((a) => [a.path, a.text]),
      sites: run.sites,
      tests: run.tests,
      unsealed: run.unsealed,
      unread: run.unread,
    }),
  );
  return hash.digest("hex");
}

/** A hidden test file: its path in the checkout and its text. */
export interface TestText {
  path: string;
  text: string;
}

/**
 * Seals the hidden test files (docs/security.md, "Sealed expectations"): each file of a language the
 * oracle reads gets its comparisons sealed; files are numbered in the order given, so a site's key
 * (`<file>.<site>`) is the same in every run of the same texts. `demoted`: keys the sweep's gold runs
 * showed a correct diff cannot pass (rules.ts `seal.gold`), left as the task wrote them.
 */
export function planSeals(
  parsers: Parsers,
  files: readonly TestText[],
  options: {
    demoted?: ReadonlySet<string>;
    framework?: string | null;
    /**
     * The base commit's test files and conftests (a setup file among them): Python ones that name a
     * module constant keep it; JS ones are read for what changes a matcher.
     */
    context?: readonly TestText[];
  } = {},
): SealRun {
  const run: SealRun = {
    fingerprint: "",
    files: [],
    added: [],
    sites: [],
    tests: [],
    unsealed: [],
    unread: [],
  };
  const python = files.filter((f) => grammarOf(f.path) === "python");
  const js = files.filter((f) => JS_GRAMMARS.has(grammarOf(f.path) ?? ""));
  const subclasses = subclassesIn(python);
  // A Python file another hidden file names (`from tests.test_x import CASES`, `import tests.test_x as m`)
  // keeps its module constants: that file may read them.
  const imported = (file: TestText) => {
    const parts = file.path.replace(/\.py$/, "").split("/");
    const stem = parts.at(-1) === "__init__" ? (parts.at(-2) ?? "") : (parts.at(-1) ?? "");
    const word = new RegExp(`(^|[^\\w])${stem.replace(/[^\w]/g, "\\$&")}($|[^\\w])`);
    return stem !== "" && python.some((other) => other !== file && word.test(other.text));
  };
  // A constant a fixture or hook may read from the module by name (`getattr(request.module, "TEXT")`,
  // `metafunc.module.TEXT`) stays in the file: any other Python file naming it as a word, strings
  // included, hidden or of the base commit (a conftest emptied TEXT and gold failed; attack review s23,
  // finding 4).
  const readers = [...python, ...(options.context ?? []).filter((f) => grammarOf(f.path) === "python")];
  const namedElsewhere = (file: TestText) => (name: string) => {
    const word = new RegExp(`(^|[^\\w])${name}($|[^\\w])`);
    return readers.some((other) => other.path !== file.path && word.test(other.text));
  };
  // unittest's asserts swapped from outside a class body (a helper, a conftest): none is sealed.
  const assertsSwapped = readers.some((f) => assertsSwappedIn(f.text));
  // The JS files the planner reads for what changes a matcher's meaning: the hidden ones and the context.
  const jsAround = [...js, ...(options.context ?? [])];
  const titles = js.length > 0 ? jsTitles(parsers, js) : new Map<string, number>();
  // jest's and vitest's equality testers change what toEqual and toStrictEqual mean, wherever they
  // are registered (a hidden file, a setup file): those comparisons are left to the runner.
  const testers = jsAround.some((f) => equalityTestersIn(f.text));
  // So does a matcher a file redefines through expect.extend.
  const extended = extendedMatchers(jsAround);
  // And a chai plugin: chai's matchers, and vitest's (chai methods too), may be redefined.
  const chaiPlugins = jsAround.some((f) => chaiPluginIn(f.text));
  // And an assignment to a member of node's or chai's assert (`assert.equal = assert.strictEqual`).
  const assertPatched = jsAround.some((f) => assertPatchedIn(f.text));
  // And a setup file rebinding the global expect, or a setup module the planner cannot read.
  const rebound = jsAround.some((f) => expectRebound(f.text));
  const setupModule = setupModuleIn(options.context ?? [], options.framework);
  const { demoted } = options;
  files.forEach((file, index) => {
    const grammar = grammarOf(file.path);
    if (grammar === "go") {
      const go = sealGo(parsers, { ...file, index }, demoted ? { demoted } : {});
      if (go === null) run.unread.push(file.path);
      else if (go.sites.length > 0 || go.unsealed.length > 0) {
        const { added, pkg: _pkg, ...sealed } = go;
        run.files.push(sealed);
        run.sites.push(...sealed.sites);
        run.tests.push(...sealed.tests);
        run.unsealed.push(...sealed.unsealed);
        if (added && !run.added.some((a) => a.path === added.path)) run.added.push(added);
      }
      return;
    }
    const sealed =
      grammar === "python"
        ? sealPython(
            parsers,
            { ...file, index },
            {
              ...(demoted ? { demoted } : {}),
              subclasses,
              imported: imported(file),
              namedElsewhere: namedElsewhere(file),
              assertsSwapped,
            },
          )
        : JS_GRAMMARS.has(grammar ?? "")
          ? sealJs(
              parsers,
              { ...file, index },
              {
                ...(demoted ? { demoted } : {}),
                titles,
                vitest: options.framework === "vitest",
                jest: options.framework === "jest",
                testers,
                extended,
                chaiPlugins,
                assertPatched,
                rebound,
                setupModule: setupModule || environmentOwnIn(file.text),
              },
            )
          : undefined;
    if (sealed === undefined) return;
    if (sealed === null) {
      run.unread.push(file.path);
      return;
    }
    if (sealed.sites.length === 0 && sealed.unsealed.length === 0) return;
    run.files.push(sealed);
    run.sites.push(...sealed.sites);
    run.tests.push(...sealed.tests);
    run.unsealed.push(...sealed.unsealed);
  });
  // A strong value the base files around the hidden ones spell is exposed too (strength.ts readAround),
  // and so is one another hidden file spells as it enters the container: the hidden files sit there
  // together, and a helper's call, an it.each row or a round trip in a sibling file handed unfixed code
  // the value a "strong" seal expected (attack review s27, finding 1).
  const around = (options.context ?? []).map((f) => f.text);
  const entering = new Map(files.map((f) => [f.path, f.text]));
  for (const sealed of run.files) entering.set(sealed.path, sealed.text);
  for (const site of run.sites) {
    if (site.strength !== "strong") continue;
    const siblings = [...entering].filter(([path]) => path !== site.test.file).map(([, text]) => text);
    if (readAround(site, around) || readInSiblings(site, siblings)) site.strength = "exposed";
  }
  // The sweep records the plan it ran first, before any demotion: a plan with demotions is named by
  // the plan it came from.
  run.fingerprint =
    demoted && demoted.size > 0
      ? planSeals(parsers, files, { ...options, demoted: new Set() }).fingerprint
      : planFingerprint(run);
  return run;
}
