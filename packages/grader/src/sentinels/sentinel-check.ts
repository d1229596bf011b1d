import type { TestCase } from "@oracle/spec";

/**
 * What a report holds of the tests the oracle planted (the pairs' tests): an entry is a planted
 * test's only when its id ends in that test's name exactly (`…::name`, a JS full title's ` name` or
 * vitest's ` > name`), and never in two planted names at once. The report is written inside the
 * container, where the code under test can rewrite it: an entry that names two planted tests is a
 * contradiction, not a match (red team, round 3: one forged entry `A[::B[]` counted for two
 * planted tests). A test may have several entries (a class another inherits, a rerun, `-count=2`).
 */
export interface PlantedUnit {
  path: string;
  /** The names its report entry may end in (a pytest class method's pair test has two). */
  names: readonly string[];
  parametrised: boolean;
}

/** The id without the planted name at its end (and that name replaced wherever else it stands), or null when `id` is not the entry of `name`. */
function scopeOf(id: string, name: string, parametrised: boolean): string | null {
  let cut: number | null = null;
  for (const sep of ["::", " > ", " "])
    if (cut === null && id.endsWith(`${sep}${name}`)) cut = id.length - name.length - sep.length;
  if (cut === null && parametrised) {
    const at = id.lastIndexOf(`::${name}[`);
    if (at >= 0 && id.endsWith("]") && !/[[\]]/.test(id.slice(at + name.length + 3, -1))) cut = at;
  }
  // mocha-junit-reporter and jest-junit put the title in the classname as well.
  return cut === null ? null : id.slice(0, cut).split(name).join("\0");
}

export interface PlantedEntries {
  /** Per unit, the report entries that are its (indices into the report). */
  entries: number[][];
  /** Per unit, the scope of each of its entries. */
  scopes: string[][];
  /** Why the report cannot be an honest run of the planted files, if it cannot. */
  problems: string[];
  /** The report indices that belong to some unit. */
  claimed: Set<number>;
}

/** Matches the report's entries to the planted units one to one (see `PlantedUnit`). */
export function matchPlanted(units: readonly PlantedUnit[], tests: readonly TestCase[]): PlantedEntries {
  const entries: number[][] = units.map(() => []);
  const scopes: string[][] = units.map(() => []);
  const problems: string[] = [];
  const claimed = new Set<number>();
  for (const [i, t] of tests.entries()) {
    const owners: number[] = [];
    for (const [u, unit] of units.entries()) {
      const scope = unit.names.map((n) => scopeOf(t.id, n, unit.parametrised)).find((s) => s !== null);
      if (scope === undefined || scope === null) continue;
      owners.push(u);
      entries[u]!.push(i);
      scopes[u]!.push(scope);
    }
    if (owners.length > 0) claimed.add(i);
    if (owners.length > 1)
      problems.push(`the report entry ${JSON.stringify(t.id)} names more than one test the oracle added`);
  }
  return { entries, scopes, problems, claimed };
}
