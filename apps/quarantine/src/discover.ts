import { listTaskIds, OracleError } from "@oracle/spec";
import picomatch from "picomatch";

/**
 * The task ids under `<root>/tasks/` that match any of `globs` (all of them when none is given), sorted.
 * A glob that matches no task is a usage error: a typo must not turn into an empty sweep.
 */
export async function selectTasks(root: string, globs: readonly string[]): Promise<string[]> {
  const ids = await listTaskIds(root);
  if (globs.length === 0) return ids;
  const selected = new Set<string>();
  for (const glob of globs) {
    const match = picomatch(glob, { dot: true });
    const matches = ids.filter((id) => match(id));
    if (matches.length === 0) {
      throw new OracleError("USAGE", `--tasks '${glob}' matches no task under ${root}/tasks/`, {
        hint: "task ids are folder names under tasks/; quote globs so the shell does not expand them",
      });
    }
    for (const id of matches) selected.add(id);
  }
  return [...selected].sort();
}

/** Whether `id` is one of the tasks a sweep over `globs` covers. */
export function coveredBy(globs: readonly string[]): (id: string) => boolean {
  if (globs.length === 0) return () => true;
  const matchers = globs.map((glob) => picomatch(glob, { dot: true }));
  return (id) => matchers.some((match) => match(id));
}
