/**
 * A value as the seal runtime writes it in the container and the oracle reads it on the host:
 * plain data, tagged (`t`) by kind, one vocabulary per language (docs/security.md, "What is plain
 * data"). The oracle never evaluates the tested code's objects: it compares these trees under the
 * comparison's own equality (python-eq.ts, js-eq.ts, go-eq.ts). A tag the oracle cannot judge
 * (`opaque`, `deep`, `big`) is never equal to anything: a comparison that meets one is a FAIL of its
 * own (VALUE_NOT_PLAIN_DATA).
 */
export interface Canon {
  t: string;
  [field: string]: unknown;
}

/** Tags that stand for a value the oracle cannot judge, in every language. */
export const UNJUDGEABLE: ReadonlySet<string> = new Set(["opaque", "deep", "big"]);

/** At most this deep a value is read from a record (the runtimes stop at 64). */
const MAX_DEPTH = 80;

/** Whether an unknown JSON value is a canon tree (objects with a string `t`, arrays of them where a tag holds them), bounded in depth. */
export function isCanon(value: unknown, depth = 0): value is Canon {
  if (depth > MAX_DEPTH || typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const t = (value as { t?: unknown }).t;
  if (typeof t !== "string") return false;
  for (const [key, field] of Object.entries(value)) {
    if (key === "t") continue;
    if (!isField(field, depth + 1)) return false;
  }
  return true;
}

/** A field of a canon node: a scalar, a canon node, or arrays of those (pairs are arrays of two). */
function isField(field: unknown, depth: number): boolean {
  if (depth > MAX_DEPTH) return false;
  if (field === null || ["string", "number", "boolean"].includes(typeof field)) return true;
  if (Array.isArray(field)) return field.every((item) => isField(item, depth + 1));
  return isCanon(field, depth);
}

/** The children a canon node holds, for walks (list items, pair halves, fields' values). */
export function canonChildren(node: Canon): Canon[] {
  const out: Canon[] = [];
  const visit = (field: unknown) => {
    if (Array.isArray(field)) for (const item of field) visit(item);
    else if (typeof field === "object" && field !== null && typeof (field as Canon).t === "string")
      out.push(field as Canon);
  };
  for (const [key, field] of Object.entries(node)) if (key !== "t") visit(field);
  return out;
}

/** Whether a canon tree holds anything the oracle cannot judge. */
export function hasUnjudgeable(node: Canon): boolean {
  if (UNJUDGEABLE.has(node.t)) return true;
  return canonChildren(node).some(hasUnjudgeable);
}

/** What a value that cannot be judged is, for a message: its class and why. */
export function unjudgeableWhy(node: Canon): string | null {
  if (UNJUDGEABLE.has(node.t)) {
    const cls = typeof node.cls === "string" ? node.cls : null;
    const why = typeof node.why === "string" ? node.why : node.t === "deep" ? "nested too deep" : "too large";
    return cls ? `${cls} (${why})` : why;
  }
  for (const child of canonChildren(node)) {
    const found = unjudgeableWhy(child);
    if (found) return found;
  }
  return null;
}
