import type { Canon } from "./canon.js";
import { hasUnjudgeable } from "./canon.js";
import { goDeepEqual, goEq, goNil, goTruth } from "./go-eq.js";
import {
  type JsRunner,
  jsDeepEqual,
  jsDeepStrictEqual,
  jsEql,
  jsToEqual,
  jsToStrictEqual,
  jsTruth,
  looseEquals,
  nodeLooseEquals,
  objectIs,
  strictEquals,
} from "./js-eq.js";
import type { ComparisonKind } from "./kinds.js";
import {
  pyAlmost,
  pyApprox,
  pyArraysSingle,
  pyEq,
  pyIs,
  pyTruth,
  pyTypedEq,
  type Verdict,
} from "./python-eq.js";
import { renderGo, renderJs, renderOther, renderPython } from "./render.js";

export type { Verdict } from "./python-eq.js";

/** What one comparison needs: its kind, its options, and for a truth seal the truth value wanted. */
export interface Comparison {
  kind: ComparisonKind;
  options?: Record<string, number | boolean | null> | undefined;
}

/**
 * Whether `actual` satisfies the comparison against `expected` (a sealed literal, or the other
 * side of a checked comparison), under the comparison's own equality (kinds.ts). "unknown" when
 * a value is not plain data.
 */
export function holds(comparison: Comparison, actual: Canon, expected: Canon): Verdict {
  const { kind, options = {} } = comparison;
  switch (kind) {
    case "py.eq":
      return pyEq(actual, expected);
    case "py.listEq":
      return pyTypedEq(actual, expected, "list");
    case "py.tupleEq":
      return pyTypedEq(actual, expected, "tuple");
    case "py.dictEq":
      return pyTypedEq(actual, expected, "dict");
    case "py.setEq":
      return pyTypedEq(actual, expected, "set");
    case "py.strEq":
      return pyTypedEq(actual, expected, "str");
    case "py.ne": {
      // numpy's != is element-wise too: its truth is an error unless both sides have one element
      // (also inside a list), and then it is the negation of ==.
      if (!pyArraysSingle(actual, expected)) return false;
      const eq = pyEq(actual, expected);
      return eq === "unknown" ? eq : !eq;
    }
    case "py.is":
      return pyIs(actual, expected);
    case "py.isnot": {
      const is = pyIs(actual, expected);
      return is === "unknown" ? is : !is;
    }
    case "py.truth": {
      const truth = pyTruth(actual);
      return truth === "unknown" ? truth : truth === (expected.v === true);
    }
    case "py.approx":
      return pyApprox(actual, expected, {
        rel: options.rel as number | null | undefined,
        abs: options.abs as number | null | undefined,
        nanOk: options.nanOk === true,
      });
    case "py.almost":
      return pyAlmost(actual, expected, {
        ...(typeof options.places === "number" ? { places: options.places } : {}),
        ...(typeof options.delta === "number" ? { delta: options.delta } : {}),
      });
    case "js.is":
      return objectIs(actual, expected);
    case "js.strict":
      return strictEquals(actual, expected);
    case "js.loose":
      return looseEquals(actual, expected);
    case "js.nodeLoose":
      return nodeLooseEquals(actual, expected);
    case "js.toEqual":
      return jsToEqual(actual, expected, runnerOf(options));
    case "js.toStrictEqual":
      return jsToStrictEqual(actual, expected, runnerOf(options));
    case "js.deepStrictEqual":
      return jsDeepStrictEqual(actual, expected);
    case "js.deepEqual":
      return jsDeepEqual(actual, expected);
    case "js.eql":
      return jsEql(actual, expected);
    case "js.truth":
      return jsTruth(actual, expected.v === true);
    case "go.eq":
      return goEq(actual, expected);
    case "go.deepEqual":
      return goDeepEqual(actual, expected);
    case "go.truth":
      return goTruth(actual, expected.v === true);
    case "go.nil":
      // A nil cell of a `want error` / `want any` column is a nil interface (goEq); else any nil.
      return typeof expected.as === "string" ? goEq(actual, expected) : goNil(actual);
    default:
      return hasUnjudgeable(actual) || hasUnjudgeable(expected) ? "unknown" : "unknown";
  }
}

/** The runner a jest/vitest matcher's plan names (`options.jest`, `options.vitest`), else null. */
const runnerOf = (options: Record<string, unknown>): JsRunner =>
  options.jest === true ? "jest" : options.vitest === true ? "vitest" : null;

/** A canon value as the comparison's language prints it. */
export function render(kind: ComparisonKind, node: Canon): string {
  if (kind.startsWith("py.")) return renderPython(node);
  if (kind.startsWith("js.")) return renderJs(node);
  if (kind.startsWith("go.")) return renderGo(node);
  return renderOther(node);
}
