import { describe, expect, it } from "vitest";
import { titleFilter } from "./title-filter.js";

const keep = (...args: Parameters<typeof titleFilter>) => {
  const f = titleFilter(...args);
  if (typeof f === "string") throw new Error(f);
  return f;
};

describe("titleFilter: the runner's own RegExp over the full title", () => {
  it("mocha --grep: a pattern, or /re/flags; --fgrep: the literal string; --invert", () => {
    expect(keep("mocha", { grep: "^ops add" })("ops add 3")).toBe(true);
    expect(keep("mocha", { grep: "^ops add" })("add 3")).toBe(false);
    expect(keep("mocha", { grep: "/OPS/i" })("ops add")).toBe(true);
    expect(keep("mocha", { grep: "OPS" })("ops add")).toBe(false);
    expect(keep("mocha", { fgrep: "a.b(" })("x a.b( y")).toBe(true);
    expect(keep("mocha", { fgrep: "a.b(" })("x aXb( y")).toBe(false);
    expect(keep("mocha", { grep: "slow", invert: true })("fast one")).toBe(true);
    expect(keep("mocha", { grep: "slow", invert: true })("slow one")).toBe(false);
  });

  it("jest -t is case-insensitive, vitest -t is not; --invert is mocha's only", () => {
    expect(keep("jest", { grep: "^Parser adds" })("parser adds 3")).toBe(true);
    expect(keep("vitest", { grep: "^Parser adds" })("parser adds 3")).toBe(false);
    expect(keep("jest", { grep: "x", invert: true })("x")).toBe(true);
  });

  it("an invalid pattern says why", () => {
    expect(titleFilter("mocha", { grep: "(" })).toMatch(/not a valid regular expression/);
    expect(titleFilter("jest", { grep: "[" })).toMatch(/not a valid regular expression/);
  });
});
