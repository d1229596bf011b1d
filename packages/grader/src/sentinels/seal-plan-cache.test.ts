import { copyFile, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadParsers, planSeals, type SealRun } from "@oracle/test-set";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  filesDigest,
  type PlanInputs,
  planKey,
  plannerFiles,
  readPlan,
  writePlan,
} from "./seal-plan-cache.js";

const TEST = `from calc import add


def test_add():
    assert add(2, 3) == 5
`;

const inputs = (text = TEST, demoted: string[] = []): PlanInputs => ({
  texts: [{ path: "tests/test_calc.py", text }],
  context: [],
  demoted: new Set(demoted),
  framework: "pytest",
});

const plan = async (i: PlanInputs): Promise<SealRun> =>
  planSeals(await loadParsers(["python"]), i.texts, { demoted: i.demoted, framework: i.framework });

describe("the seal plan cache", () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "oracle-plan-cache-"));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("gives back the plan written for the same inputs, equal to a fresh one", async () => {
    const key = await planKey(inputs());
    expect(await readPlan(root, key)).toBeNull();
    const fresh = await plan(inputs());
    expect(fresh.sites.length).toBeGreaterThan(0);
    await writePlan(root, key, fresh);
    expect(await readPlan(root, key)).toEqual(await plan(inputs()));
  });

  it("keys on every input: a changed text, demoted key or framework is another plan", async () => {
    const key = await planKey(inputs());
    expect(await planKey(inputs())).toBe(key);
    expect(await planKey(inputs(TEST.replace("== 5", "== 6")))).not.toBe(key);
    expect(await planKey(inputs(TEST, ["0.0"]))).not.toBe(key);
    expect(await planKey({ ...inputs(), framework: null })).not.toBe(key);
    expect(await planKey({ ...inputs(), context: [{ path: "tests/conftest.py", text: "" }] })).not.toBe(key);
  });

  it("keys on the parser's files too: web-tree-sitter and every grammar's .wasm, by their bytes", async () => {
    // A parser upgrade (a new tree-sitter-python) kept the plans of the old one until the planner's
    // own code changed (sealpy3).
    const files = await plannerFiles();
    for (const name of ["tree-sitter.wasm", "tree-sitter-python.wasm", "tree-sitter-javascript.wasm"])
      expect(files.some((f) => f.endsWith(`/${name}`))).toBe(true);
    for (const name of ["tree-sitter-typescript.wasm", "tree-sitter-tsx.wasm", "tree-sitter-go.wasm"])
      expect(files.some((f) => f.endsWith(`/${name}`))).toBe(true);
    for (const file of files) expect((await stat(file)).isFile()).toBe(true);
    // The same path with one byte changed is another digest.
    const grammar = files.find((f) => f.endsWith("/tree-sitter-python.wasm"))!;
    const copy = join(root, "tree-sitter-python.wasm");
    await copyFile(grammar, copy);
    const before = await filesDigest([copy]);
    expect(await filesDigest([copy])).toBe(before);
    const bytes = await readFile(copy);
    bytes[0] = bytes[0]! ^ 1;
    await writeFile(copy, bytes);
    expect(await filesDigest([copy])).not.toBe(before);
  });

  it("does not use an entry whose plan was changed after it was written, nor one under another key", async () => {
    const key = await planKey(inputs());
    await writePlan(root, key, await plan(inputs()));
    const [name] = await readdir(join(root, ".oracle", "seal-plans"));
    const file = join(root, ".oracle", "seal-plans", name!);
    const text = await readFile(file, "utf8");
    // A site's expected value edited in place: the digest no longer holds.
    const entry = JSON.parse(text);
    entry.plan.sites[0].expected = { t: "int", v: "6" };
    await writeFile(file, JSON.stringify(entry));
    expect(await readPlan(root, key)).toBeNull();
    // An entry copied under another key.
    const other = await planKey(inputs(TEST.replace("== 5", "== 6")));
    await writeFile(join(root, ".oracle", "seal-plans", `${other}.json`), text);
    expect(await readPlan(root, other)).toBeNull();
  });

  it("never writes a plan JSON would change (NaN, an undefined field)", async () => {
    const fresh = await plan(inputs());
    const odd = { ...fresh, sites: fresh.sites.map((s) => ({ ...s, options: { rel: Number.NaN } })) };
    const key = await planKey(inputs());
    await writePlan(root, key, odd);
    expect(await readPlan(root, key)).toBeNull();
    await writePlan(root, key, { ...fresh, unread: undefined as unknown as string[] });
    expect(await readPlan(root, key)).toBeNull();
  });
});
