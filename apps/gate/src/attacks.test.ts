// Attacks on the gate (a security review of its first version). Each test asserts the correct
// behaviour and is named by its attack. Those marked "CLOSED" were stopped by the first version; the
// others worked against it and were closed after (signed manifests, the veto before the input check,
// equal samples per task, the percentile index, rounding, a sign-flip test, signed evidence, shell
// quoting, code spans in gate.md).
//
// Threat model: the candidate model's author controls the diffs and the predictions file (ids, task
// names, diffPath, samples per task), so any reason code a diff can provoke; someone who can write
// files in the candidate's batch folder (not holding the signing key) edits, deletes, reorders,
// duplicates or transplants lines and edits batch.json.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { signedLine } from "@oracle/grader";
import { type GateReport, isOracleError, type ResultLine } from "@oracle/spec";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decide, type GateParameters } from "./decide.js";
import { type LoadedBatch, loadBatch } from "./read-batch.js";
import { renderHtml, renderMarkdown, renderText } from "./report.js";
import { mcnemarExact, pairedBootstrap, seededRandom, signFlipTest } from "./stats.js";
import { batch, line, type Sample, tasks, testKey, writeBatch } from "./testing/batches.js";

const key = testKey();
const trusted = new Map([[key.keyid, key]]);
const P = {
  mode: "superiority",
  margin: 0,
  alpha: 0.05,
  maxInfra: 0.05,
  resamples: 2_000,
  seed: 1,
  allowUnvalidated: false,
  allowMissing: false,
} as GateParameters;

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "gate-attacks-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const sha256 = (s: string | Buffer) => createHash("sha256").update(s).digest("hex");

/** The gate as the CLI runs it on two folders: "refused" when loading or deciding throws an OracleError. */
async function gateDirs(
  candidateDir: string,
  incumbentDir: string,
  p: Partial<GateParameters> = {},
): Promise<GateReport | "refused"> {
  try {
    const [candidate, incumbent] = await Promise.all([
      loadBatch(candidateDir, trusted),
      loadBatch(incumbentDir, trusted),
    ]);
    return decide({ candidate, incumbent, parameters: { ...P, ...p }, graderVersion: "test" });
  } catch (error) {
    if (isOracleError(error)) return "refused";
    throw error;
  }
}
const decisionOf = (r: GateReport | "refused") => (r === "refused" ? "refused" : r.decision);

const gate = (c: LoadedBatch, i: LoadedBatch, p: Partial<GateParameters> = {}) =>
  decide({ candidate: c, incumbent: i, parameters: { ...P, ...p }, graderVersion: "test" });

const readLines = async (dir: string) =>
  (await readFile(join(dir, "results.jsonl"), "utf8"))
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as ResultLine);
const writeLines = (dir: string, lines: ResultLine[]) =>
  writeFile(join(dir, "results.jsonl"), `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);

/** Points batch.json at a predictions file the attacker writes, listing exactly the lines kept. */
async function forgePredictions(dir: string, lines: ResultLine[]): Promise<void> {
  const text = `${lines.map((l) => JSON.stringify({ id: l.id, task: l.task, diff: "" })).join("\n")}\n`;
  const file = join(dir, "forged-predictions.jsonl");
  await writeFile(file, text);
  const meta = JSON.parse(await readFile(join(dir, "batch.json"), "utf8")) as Record<string, unknown>;
  await writeFile(
    join(dir, "batch.json"),
    JSON.stringify({ ...meta, predictionsFile: file, predictionsSha256: sha256(text) }),
  );
}

/** k samples per task from a list of reasons per task. */
const samples = (spec: Record<string, Sample["reason"][]>): Sample[] =>
  Object.entries(spec).flatMap(([task, reasons]) => reasons.map((reason) => ({ task, reason })));

describe("folder write: deleting signed lines", () => {
  // 12 tasks, 2 samples a side, one pass and one fail each on both sides: no difference at all.
  const even = () =>
    samples(Object.fromEntries(Array.from({ length: 12 }, (_, t) => [`t${t}`, ["PASS", "TESTS_FAILED"]])));

  it("deleting the candidate's failing samples and pointing batch.json at a forged predictions file must not promote", async () => {
    const c = await writeBatch(root, "del-forged-c", even(), key);
    const i = await writeBatch(root, "del-forged-i", even(), key);
    expect(decisionOf(await gateDirs(c.dir, i.dir))).toBe("reject"); // honest: no difference
    const kept = (await readLines(c.dir)).filter((l) => l.reason !== "TESTS_FAILED");
    await writeLines(c.dir, kept);
    await forgePredictions(c.dir, kept);
    // Was: every line verifies, completeness "complete", each task 1/1 vs 1/2: PROMOTE.
    expect(decisionOf(await gateDirs(c.dir, i.dir))).not.toBe("promote");
  });

  it("deleting the candidate's failing samples and its predictions file must not promote (completeness unchecked is only a warning)", async () => {
    const c = await writeBatch(root, "del-gone-c", even(), key);
    const i = await writeBatch(root, "del-gone-i", even(), key);
    await writeLines(
      c.dir,
      (await readLines(c.dir)).filter((l) => l.reason !== "TESTS_FAILED"),
    );
    await rm(c.predictions); // or: the batch folder was copied to another machine (CI artifacts)
    expect(decisionOf(await gateDirs(c.dir, i.dir))).not.toBe("promote");
  });

  it("deleting the one tampering sample of a task (veto evasion) must not promote", async () => {
    const cSamples = [
      ...samples({ x: ["REPORT_INCONSISTENT", "PASS"] }),
      ...samples(Object.fromEntries(Array.from({ length: 12 }, (_, t) => [`t${t}`, ["PASS", "PASS"]]))),
    ];
    const iSamples = samples(
      Object.fromEntries([
        ["x", ["TESTS_FAILED", "TESTS_FAILED"]],
        ...Array.from({ length: 12 }, (_, t) => [`t${t}`, ["TESTS_FAILED", "TESTS_FAILED"]]),
      ]),
    );
    const c = await writeBatch(root, "veto-c", cSamples, key);
    const i = await writeBatch(root, "veto-i", iSamples, key);
    expect(decisionOf(await gateDirs(c.dir, i.dir))).toBe("reject"); // honest: vetoed
    const kept = (await readLines(c.dir)).filter((l) => l.reason !== "REPORT_INCONSISTENT");
    await writeLines(c.dir, kept);
    await forgePredictions(c.dir, kept);
    // Was: PROMOTE, and the report never mentions the tampering verdict.
    expect(decisionOf(await gateDirs(c.dir, i.dir))).not.toBe("promote");
  });

  it("deleting a whole task of the candidate (one sample a task) does not promote (CLOSED: the task is lacking, inconclusive)", async () => {
    const c = await writeBatch(
      root,
      "deltask-c",
      [
        ...tasks("t", 6, "PASS"),
        { task: "u0", reason: "TESTS_FAILED" },
        { task: "u1", reason: "TESTS_FAILED" },
      ],
      key,
    );
    const i = await writeBatch(
      root,
      "deltask-i",
      [...tasks("t", 6, "TESTS_FAILED"), { task: "u0", reason: "PASS" }, { task: "u1", reason: "PASS" }],
      key,
    );
    const kept = (await readLines(c.dir)).filter((l) => !l.task.startsWith("u"));
    await writeLines(c.dir, kept);
    await forgePredictions(c.dir, kept);
    expect(decisionOf(await gateDirs(c.dir, i.dir))).not.toBe("promote");
  });
});

describe("folder write: transplanting a whole signed batch", () => {
  it("the incumbent's own batch copied in as the candidate's must not promote under non-inferiority", async () => {
    const i = await writeBatch(
      root,
      "same-i",
      [...tasks("t", 200, "PASS"), ...tasks("f", 100, "TESTS_FAILED")],
      key,
    );
    const cDir = join(root, "same-c");
    await cp(i.dir, cDir, { recursive: true });
    // Was: same batch id on both sides, 0 discordant tasks of 300, Tango's interval [-1.3, 1.3]
    // points, above -2: PROMOTE
    // of a model that was never graded. The gate should refuse two batches with one batch id (and
    // warn when every candidate diff is an incumbent diff).
    expect(decisionOf(await gateDirs(cDir, i.dir, { mode: "non-inferiority", margin: 0.02 }))).not.toBe(
      "promote",
    );
  });
});

describe("folder write: editing, duplicating, reordering, transplanting lines", () => {
  it("an edited verdict is refused (CLOSED)", async () => {
    const c = await writeBatch(root, "edit-c", tasks("t", 3, "TESTS_FAILED"), key);
    const lines = await readLines(c.dir);
    lines[0] = { ...lines[0]!, verdict: "PASS", reason: "PASS" };
    await writeLines(c.dir, lines);
    await expect(loadBatch(c.dir, trusted)).rejects.toMatchObject({ code: "RESULT_UNVERIFIED" });
  });

  it("a duplicated line is refused (CLOSED)", async () => {
    const c = await writeBatch(root, "dup-c", tasks("t", 3, "PASS"), key);
    const lines = await readLines(c.dir);
    await writeLines(c.dir, [...lines, lines[0]!]);
    await expect(loadBatch(c.dir, trusted)).rejects.toMatchObject({ code: "RESULT_UNVERIFIED" });
  });

  it("a line transplanted from another batch is refused (CLOSED)", async () => {
    const c = await writeBatch(root, "tr-c", tasks("t", 3, "TESTS_FAILED"), key);
    const other = await writeBatch(root, "tr-o", [{ task: "t9", reason: "PASS" }], key);
    await writeLines(c.dir, [...(await readLines(c.dir)), ...(await readLines(other.dir))]);
    await expect(loadBatch(c.dir, trusted)).rejects.toMatchObject({ code: "RESULT_UNVERIFIED" });
  });

  it("reordered lines give the same decision (CLOSED)", async () => {
    const spec = [...tasks("t", 14, "PASS"), ...tasks("t", 14, "TESTS_FAILED"), ...tasks("u", 6, "PASS")];
    const c = await writeBatch(root, "ord-c", spec, key);
    const i = await writeBatch(
      root,
      "ord-i",
      [...tasks("t", 14, "TESTS_FAILED"), ...tasks("t", 14, "TESTS_FAILED"), ...tasks("u", 6, "PASS")],
      key,
    );
    const before = await gateDirs(c.dir, i.dir);
    await writeLines(c.dir, (await readLines(c.dir)).reverse());
    const after = await gateDirs(c.dir, i.dir);
    expect(decisionOf(after)).toBe(decisionOf(before));
    expect((after as GateReport).test?.lower).toBe((before as GateReport).test?.lower);
  });

  it.each([
    ["message", { message: "harmless: TESTS_FAILED" }],
    ["log", { log: "/logs/some-clean-run.log" }],
    ["attempts", { attempts: 0 }],
  ])("the veto's evidence (%s) cannot be edited after signing", async (field, edit) => {
    const c = await writeBatch(root, `evid-${field}`, [{ task: "x", reason: "REPORT_INCONSISTENT" }], key);
    const lines = await readLines(c.dir);
    lines[0] = { ...lines[0]!, ...edit };
    await writeLines(c.dir, lines);
    // Was: message, log and attempts were outside the signed statement, so the veto listed a
    // forged message and linked a clean log.
    await expect(loadBatch(c.dir, trusted)).rejects.toMatchObject({ code: "RESULT_UNVERIFIED" });
  });
});

describe("the model author: choosing which tasks count", () => {
  it("omitting the tasks it fails from its predictions does not promote (CLOSED: lacking tasks make it inconclusive)", () => {
    const r = gate(
      batch(tasks("t", 8, "PASS"), key),
      batch([...tasks("t", 8, "TESTS_FAILED"), ...tasks("u", 20, "PASS")], key),
    );
    expect(r.decision).not.toBe("promote");
  });

  it("a diffPath that cannot be read (DIFF_UNREADABLE, outcome error) on the tasks it fails does not promote (CLOSED)", () => {
    const c = batch(tasks("t", 8, "PASS"), key);
    const extra = tasks("u", 20, "TESTS_FAILED").map((s) => {
      const l = line(s, c.ref.batchId, key);
      const { attestation: _, ...bare } = l;
      return signedLine(
        {
          ...bare,
          outcome: "error",
          verdict: null,
          reason: null,
          error: "DIFF_UNREADABLE",
          log: null,
          imageDigest: null,
          attempts: 0,
        },
        key,
        { batch: c.ref.batchId, job: null, jobDigest: null, resultDigest: null },
      );
    });
    const r = gate(
      { ...c, lines: [...c.lines, ...extra] },
      batch([...tasks("t", 8, "TESTS_FAILED"), ...tasks("u", 20, "PASS")], key),
    );
    expect(r.decision).not.toBe("promote");
  });

  it("TIMEOUT provoked on the candidate's losing samples (within --max-infra) does not promote (CLOSED: counted against it)", () => {
    const c = [
      ...tasks("g", 6, "PASS"),
      ...tasks("r", 2, "TIMEOUT"), // honestly TESTS_FAILED: two regressions
      ...tasks("b", 32, "PASS"),
    ];
    const i = [...tasks("g", 6, "TESTS_FAILED"), ...tasks("r", 2, "PASS"), ...tasks("b", 32, "PASS")];
    expect(gate(batch(c, key), batch(i, key)).decision).not.toBe("promote");
  });

  it("INFRA_ERROR provoked on many samples makes it inconclusive, never promote (CLOSED)", () => {
    const c = [...tasks("g", 10, "PASS"), ...tasks("r", 10, "INFRA_ERROR")];
    const i = [...tasks("g", 10, "TESTS_FAILED"), ...tasks("r", 10, "PASS")];
    expect(gate(batch(c, key), batch(i, key)).decision).toBe("inconclusive");
  });

  it("one extra sample on one task switches McNemar (p = 0.07, reject) to the bootstrap on 10 tasks, which must not promote", () => {
    const cOne = [
      ...tasks("g", 7, "PASS"),
      { task: "r0", reason: "TESTS_FAILED" as const },
      ...tasks("f", 2, "TESTS_FAILED"),
    ];
    const iOne = [
      ...tasks("g", 7, "TESTS_FAILED"),
      { task: "r0", reason: "PASS" as const },
      ...tasks("f", 2, "TESTS_FAILED"),
    ];
    const honest = gate(batch(cOne, key), batch(iOne, key));
    expect(honest.test?.method).toBe("exact McNemar");
    expect(honest.decision).toBe("reject"); // 7 gains, 1 regression: exact p = 0.0703
    // The candidate's predictions file repeats one task it passes: the same evidence, now "k samples".
    const forced = gate(batch([...cOne, { task: "g0", reason: "PASS" }], key), batch(iOne, key));
    // Was: percentile bootstrap on 10 tasks, lower end 0.1, "p = 0.018": PROMOTE. Now samples per
    // task must be the same for every task on each side, or the gate does not decide.
    expect(forced.decision).not.toBe("promote");
    expect(forced.why).toContain("samples per task differ (candidate 1 to 2, incumbent 1)");
  });
});

describe("the tamper veto", () => {
  it("a tampering verdict rejects even when another task was graded on different inputs (was: BATCHES_DIFFER, exit 2)", () => {
    const c = batch(
      [
        ...tasks("t", 10, "PASS"),
        { task: "x", reason: "REPORT_INCONSISTENT" },
        { task: "y", reason: "PASS", taskHash: "old" },
      ],
      key,
    );
    const i = batch(
      [...tasks("t", 10, "TESTS_FAILED"), { task: "x", reason: "PASS" }, { task: "y", reason: "PASS" }],
      key,
    );
    let decision: string;
    try {
      decision = gate(c, i).decision;
    } catch (error) {
      decision = isOracleError(error) ? (error as { code: string }).code : "threw";
    }
    expect(decision).toBe("reject");
  });
});

describe("statistics", () => {
  it("a bootstrap lower end that is 0 up to rounding (2.2e-17) must not clear superiority's bound of 0", () => {
    // Three samples a side; per-task differences (in task order):
    // 2/3, 2/3, -2/3, 0, 0, 2/3, 1/3, 2/3, 2/3, 0. With 1,000 resamples and seed 1 the 2.5%
    // quantile is a resample whose mean is exactly 0, computed as 2.2e-17; 52 of 1,000 resamples
    // are at or below 0 (p = 0.052), yet the gate promotes.
    const pairs: Array<[number, number]> = [
      [3, 1],
      [3, 1],
      [0, 2],
      [1, 1],
      [2, 2],
      [3, 1],
      [1, 0],
      [2, 0],
      [2, 0],
      [0, 0],
    ];
    const side = (which: 0 | 1): Sample[] =>
      pairs.flatMap((pair, t) =>
        Array.from({ length: 3 }, (_, s) => ({
          task: `t${t}`,
          reason: s < pair[which] ? ("PASS" as const) : ("TESTS_FAILED" as const),
        })),
      );
    const r = gate(batch(side(0), key), batch(side(1), key), { resamples: 1000, seed: 1 });
    expect(r.test?.method).toBe("paired bootstrap");
    expect(r.test!.pValue).toBeGreaterThan(0.05);
    expect(r.decision).not.toBe("promote");
  });

  it("percentile index: a promote needs fewer than alpha/2 of the resamples at or below 0 (was: exactly 25 of 1,000, p = 0.05, promotes)", () => {
    // Two samples a side; differences 0.5, -0.5, -0.5, 1, 0.5, 0.5, 1, 0, 1, 0. With 1,000
    // resamples and seed 1, 25 resamples (2.5%) are at or below 0: the 2.5% quantile (the 25th
    // value, index 24) is <= 0, but the gate reads index floor(1000 * 0.05 / 2) = 25 (0.05 > 0).
    const pairs: Array<[number, number]> = [
      [1, 0],
      [0, 1],
      [0, 1],
      [2, 0],
      [1, 0],
      [2, 1],
      [2, 0],
      [1, 1],
      [2, 0],
      [0, 0],
    ];
    const side = (which: 0 | 1): Sample[] =>
      pairs.flatMap((pair, t) =>
        Array.from({ length: 2 }, (_, s) => ({
          task: `t${t}`,
          reason: s < pair[which] ? ("PASS" as const) : ("TESTS_FAILED" as const),
        })),
      );
    const r = gate(batch(side(0), key), batch(side(1), key), { resamples: 1000, seed: 1 });
    expect(r.test?.method).toBe("paired bootstrap");
    if (r.decision === "promote") expect(r.test!.pValue).toBeLessThan(0.05);
  });

  it("the paired bootstrap at the minimum of 10 tasks keeps its one-sided false-promote rate near alpha/2", () => {
    // Null: both models share each task's solve probability q ~ U(0, 1), two samples a side.
    const random = seededRandom(7);
    const runs = 4000;
    let promoted = 0;
    for (let run = 0; run < runs; run++) {
      const d: number[] = [];
      for (let t = 0; t < 10; t++) {
        const q = random();
        let c = 0;
        let i = 0;
        for (let k = 0; k < 2; k++) {
          if (random() < q) c += 1;
          if (random() < q) i += 1;
        }
        d.push((c - i) / 2);
      }
      // The gate's rule for k samples: the bootstrap's lower end above 0 and the sign-flip test's p below alpha.
      const boot = pairedBootstrap(d, { resamples: 1000, seed: run + 1, alpha: 0.05 });
      const p = signFlipTest(d, { resamples: 1000, seed: run + 1 });
      if (boot.effect > 1e-9 && boot.lower > 1e-9 && p < 0.05) promoted += 1;
    }
    // alpha/2 = 0.025 plus 2.5 standard errors of the simulation (0.0025). The bootstrap alone: 0.034.
    expect(promoted / runs).toBeLessThan(0.025 + 2.5 * Math.sqrt((0.025 * 0.975) / runs));
  }, 60_000);

  it("McNemar exact: published values (CLOSED)", () => {
    expect(mcnemarExact(7, 1)).toBeCloseTo(0.0703125, 10);
    expect(mcnemarExact(6, 0)).toBeCloseTo(0.03125, 10);
  });
});

describe("injection into the outputs", () => {
  /** A report whose ids, tasks, messages and paths are hostile. */
  function hostile(): GateReport {
    const evil = "<img src=x onerror=alert(1)>|](javascript:alert(1))\u001b]0;pwned\u0007\u001b[2J";
    const c = batch(
      [
        { task: "t0", reason: "REPORT_INCONSISTENT", id: evil },
        // A prediction naming a task that does not exist: the batch signs a TASK_NOT_FOUND line
        // (outcome error) whose task is whatever the predictions file said; a line that is not
        // compared (here quarantined) stands in for it.
        { task: "https://evil.example/reset-password", reason: "TASK_QUARANTINED", id: `${evil}2` },
      ],
      key,
    );
    return gate(c, batch([{ task: "t0", reason: "PASS" }], key));
  }

  it("gate.html escapes ids, tasks and messages (CLOSED)", () => {
    const html = renderHtml(hostile(), "/out");
    expect(html).not.toContain("<img");
    expect(html).not.toContain("\u001b");
  });

  it("the terminal summary shows no escape sequence (CLOSED)", () => {
    expect(renderText(hostile(), [])).not.toContain("\u001b");
  });

  /** gate.md without its code spans (shown literally: no HTML, no link, no markup inside one). */
  const outsideCodeSpans = (md: string) => md.replace(/(`+)[^`]*?(?:`(?!\1)[^`]*?)*\1/g, "");

  it("gate.md: no raw HTML, table breaks or links from ids (CLOSED)", () => {
    const md = outsideCodeSpans(renderMarkdown(hostile(), "/out"));
    expect(md).not.toMatch(/(^|[^\\])<img/);
    expect(md).not.toMatch(/(^|[^\\])\]\(javascript/);
  });

  it("gate.md: a task name from the predictions file does not become a live link (GFM autolink)", () => {
    const full = renderMarkdown(hostile(), "/out");
    expect(full).toContain("`https://evil.example/reset-password`");
    const md = outsideCodeSpans(full);
    // Was: "- https://evil.example/reset-password: candidate: quarantined" in the job summary,
    // which GitHub renders as a clickable link.
    expect(md).not.toMatch(/https:\/\/evil\.example/);
  });

  it("the printed regrade command quotes a predictions path from batch.json (shell injection)", async () => {
    const c = await writeBatch(
      root,
      "shell-c",
      [...tasks("t", 10, "PASS"), ...tasks("u", 2, "INFRA_ERROR")],
      key,
    );
    const i = await writeBatch(
      root,
      "shell-i",
      [...tasks("t", 10, "TESTS_FAILED"), ...tasks("u", 2, "PASS")],
      key,
    );
    const meta = JSON.parse(await readFile(join(c.dir, "batch.json"), "utf8")) as Record<string, unknown>;
    const path = "/tmp/p.jsonl; echo INJECTED $(echo TOO)";
    await writeFile(join(c.dir, "batch.json"), JSON.stringify({ ...meta, predictionsFile: path }));
    const r = await gateDirs(c.dir, i.dir);
    expect(decisionOf(r)).toBe("inconclusive"); // 2 of 12 samples INFRA_ERROR: above 5%
    const command = (r as GateReport).next[0]!;
    // Parse it as a shell would (pnpm replaced by printf): the path must be one argument, intact.
    const out = spawnSync("sh", ["-c", command.replace(/^pnpm /, "printf '%s\\n' ")], { encoding: "utf8" });
    const words = out.stdout.trim().split("\n");
    expect(words).toContain(path);
    expect(words).not.toContain("INJECTED");
  });
});
