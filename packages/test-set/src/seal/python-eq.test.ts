import { describe, expect, it } from "vitest";
import type { Canon } from "./canon.js";
import { pyAlmost, pyApprox } from "./python-eq.js";

/** Each verdict here is what Debian's pytest 7 and unittest say for the same values (a TypeError fails the assertion). */
const float = (d: string): Canon => ({ t: "float", d });
const complex = (re: string, im: string): Canon => ({ t: "complex", re, im });
const decimal = (v: string): Canon => ({ t: "decimal", v });
const int = (v: string): Canon => ({ t: "int", v });

describe("pytest.approx on the host", () => {
  it("a complex value is compared by the magnitude of its difference, imaginary part included", () => {
    expect(pyApprox(complex("8e-26", "1.3e-9"), float("0.0"), {})).toBe(false);
    expect(pyApprox(complex("1", "1e-13"), float("1.0"), {})).toBe(true);
    expect(pyApprox(complex("1", "1e-7"), float("1.0"), {})).toBe(true);
  });

  it("a Decimal against a float raises TypeError in pytest unless they are equal", () => {
    expect(pyApprox(decimal("0.3"), float("0.3"), {})).toBe(false);
    expect(pyApprox(decimal("0.5"), float("0.5"), {})).toBe(true);
  });
});

describe("assertAlmostEqual on the host", () => {
  it("complex differences by magnitude; a Decimal against a float is a TypeError", () => {
    expect(pyAlmost(complex("1", "1e-3"), float("1.0"), {})).toBe(false);
    expect(pyAlmost(complex("1", "1e-9"), float("1.0"), {})).toBe(true);
    expect(pyAlmost(decimal("0.3"), float("0.3"), {})).toBe(false);
    expect(pyAlmost(decimal("0.30000001"), decimal("0.3"), {})).toBe(true);
  });

  it("places: round(diff, places) == 0, half to even on the exact value, negative places too", () => {
    expect(pyAlmost(float("1.5"), float("1.0"), { places: 0 })).toBe(true);
    expect(pyAlmost(float("0.25"), float("0.0"), { places: 0 })).toBe(true);
    expect(pyAlmost(float("2.0"), float("1.0"), { places: 0 })).toBe(false);
    expect(pyAlmost(float("0.05"), float("0.0"), { places: 1 })).toBe(false);
    expect(pyAlmost(int("6"), int("1"), { places: -1 })).toBe(true);
    expect(pyAlmost(int("7"), int("1"), { places: -1 })).toBe(false);
  });
});
