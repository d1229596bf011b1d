import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { PATHS } from "./container-config.js";

/**
 * The oracle's mocha guard (docs/security.md, "What ends a mocha test"). Mocha counts a test whose
 * body throws its internal `Pending` as passed whether or not the test called `skip()`
 * (`Runnable#run`: `if (err instanceof Pending) return done()`), so code under test that throws one
 * for the inputs it gets wrong turns those tests into passes without touching the runner. The
 * guard is preloaded (`NODE_OPTIONS=--require`) into every process of a mocha suite before any test
 * code, and installs, in the mocha of that process only:
 *
 * - `Pending[Symbol.hasInstance]`, non-writable and non-configurable: a value is mocha's Pending only
 *   while the runnable being run is marked pending (which `skip()` does before it throws). A Pending
 *   the code throws on its own is an ordinary exception: the test fails.
 * - `Runnable.prototype.run`, non-writable and non-configurable: records the runnable being run, and
 *   (strict skips, the hidden suite when its files call no `skip()`) turns a test or hook that became
 *   pending while it ran into a failure, so a `skip()` reached from the code under test is a failure
 *   even where the JUnit reporter leaves pending tests out of its report.
 *
 * The guard runs in the tests' own process: code that re-implements mocha's `run` and installs it
 * on a test gets around it (that is runner tampering, the sentinels' business; see "What still gets through").
 */

/** Where the guard is in each suite's container: its read-only run folder. */
export const MOCHA_GUARD_PATH = `${PATHS.run}/mocha-guard.cjs`;

/** The guard's source; `strictSkip` makes a skip at run time a failure. */
export function mochaGuardSource(options: { strictSkip: boolean }): string {
  return `"use strict";
// The oracle's mocha guard: see packages/grader/src/run/mocha-guard.ts in the oracle's repository.
(() => {
  const fs = require("fs");
  const path = require("path");
  const strictSkip = ${options.strictSkip};
  // Only a mocha process: its main script is inside the mocha package (bin, cli, parallel worker).
  let root = null;
  try {
    for (let dir = path.dirname(fs.realpathSync(process.argv[1])); ; dir = path.dirname(dir)) {
      const file = path.join(dir, "package.json");
      if (fs.existsSync(file)) {
        if (JSON.parse(fs.readFileSync(file, "utf8")).name === "mocha") root = dir;
        break;
      }
      if (path.dirname(dir) === dir) break;
    }
  } catch {
    return;
  }
  if (root === null) return;
  const Pending = require(path.join(root, "lib", "pending.js"));
  const Runnable = require(path.join(root, "lib", "runnable.js"));
  const run = Runnable && Runnable.prototype && Runnable.prototype.run;
  if (typeof Pending !== "function" || typeof run !== "function")
    throw new Error("oracle mocha guard: this mocha has no lib/pending.js or Runnable#run; the oracle cannot grade it");
  const ordinary = Function.prototype[Symbol.hasInstance];
  let current = null;
  Object.defineProperty(Pending, Symbol.hasInstance, {
    value: function hasInstance(value) {
      return ordinary.call(Pending, value) && current !== null && current.pending === true;
    },
    writable: false,
    enumerable: false,
    configurable: false,
  });
  Object.defineProperty(Runnable.prototype, "run", {
    value: function guardedRun(fn) {
      const self = this;
      const wasPending = this.isPending();
      current = this;
      return run.call(this, function guardedDone(err) {
        if (strictSkip && !wasPending && self.pending === true) {
          self.pending = false;
          if (!err) err = new Error("oracle: skipped while it ran, and its test file calls no skip()");
        }
        return fn.call(this, err);
      });
    },
    writable: false,
    enumerable: true,
    configurable: false,
  });
})();
`;
}

/** A call of `skip()` with no argument (`this.skip()`, `ctx.skip()`): a test file that skips at run time on its own. */
const RUNTIME_SKIP = /\bskip\s*\(\s*\)/;

/**
 * Writes the guard into both suites' run folders (read-only in the containers). The hidden suite's
 * is strict unless one of its JS files calls `skip()` itself; the existing suite's never is.
 */
export async function writeMochaGuards(
  runDirs: Record<"existing" | "hidden", string>,
  hiddenFiles: readonly string[],
): Promise<void> {
  const js = hiddenFiles.filter((f) => /\.[cm]?[jt]sx?$/.test(f));
  const texts = await Promise.all(
    js.map((f) => readFile(join(runDirs.hidden, "tests", f), "utf8").catch(() => "")),
  );
  const strictSkip = !texts.some((t) => RUNTIME_SKIP.test(t));
  await Promise.all([
    writeFile(join(runDirs.existing, "mocha-guard.cjs"), mochaGuardSource({ strictSkip: false }), {
      mode: 0o644,
    }),
    writeFile(join(runDirs.hidden, "mocha-guard.cjs"), mochaGuardSource({ strictSkip }), { mode: 0o644 }),
  ]);
}
