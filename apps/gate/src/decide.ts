// The gate's decision, pure: two verified batches in, a report out. In order: the veto on
// tampering, infrastructure noise, then the statistics paired by task (docs/gate.md).

import {
  type GateReport,
  type GateTask,
  type GateTest,
  OracleError,
  REASON_CLASS,
  type ReasonClass,
  type ResultLine,
} from "@oracle/spec";
import type { LoadedBatch } from "./read-batch.js";
import { mcnemarExact, pairedBootstrap, signFlipTest, tangoInterval } from "./stats.js";

export interface GateParameters {
  mode: "superiority" | "non-inferiority";
  /** Non-inferiority: how far below the incumbent the candidate may be (0.02: two points). */
  margin: number;
  alpha: number;
  /** Share of unknown samples (INFRA_ERROR, TIMEOUT) on either side above which the gate cannot decide. */
  maxInfra: number;
  resamples: number;
  seed: number;
  allowUnvalidated: boolean;
  /** Leave out tasks the incumbent has a comparable result for and the candidate does not (default: inconclusive). */
  allowMissing: boolean;
}

/** The bootstrap's percentile interval is too optimistic on fewer tasks than this. */
export const MIN_BOOTSTRAP_TASKS = 10;

/** A line's class; an infra error without a run (a queue answer refused) is noise like one after a run. */
const classOf = (line: ResultLine): ReasonClass | null =>
  line.outcome === "infra_error" ? "infra" : line.reason ? REASON_CLASS[line.reason] : null;

/** Why a task cannot be compared on this side's line, or null when it can. */
function whyLeftOut(line: ResultLine, allowUnvalidated: boolean): string | null {
  if (line.outcome === "quarantined") return "quarantined";
  if (line.outcome === "error") return `no run (${line.error})`;
  if (classOf(line) === "task") return `the task could not run (${line.reason})`;
  if (!allowUnvalidated && line.validation !== "current")
    return `not validated when graded (${line.validation ?? "never"})`;
  return null;
}

function groupByTask(lines: readonly ResultLine[]): Map<string, ResultLine[]> {
  const out = new Map<string, ResultLine[]>();
  for (const line of lines) out.set(line.task, [...(out.get(line.task) ?? []), line]);
  return out;
}

type Side = GateTask["candidate"];

function sideOf(lines: readonly ResultLine[]): Side {
  const samples = [...lines]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((l) => ({
      id: l.id,
      reason: l.reason,
      class: classOf(l),
      log: l.log,
      diffSha256: l.diffSha256,
    }));
  const count = (c: ReasonClass[]) => samples.filter((s) => s.class !== null && c.includes(s.class)).length;
  // A tampered incumbent sample counts as a fail (only the candidate's are vetoed).
  return { passes: count(["pass"]), fails: count(["fail", "tamper"]), unknown: count(["infra"]), samples };
}

function outcomeOf(candidate: Side, incumbent: Side): Pick<GateTask, "outcome" | "difference"> {
  const cKnown = candidate.passes + candidate.fails;
  const iKnown = incumbent.passes + incumbent.fails;
  if (cKnown === 0 || iKnown === 0) return { outcome: "unknown", difference: null };
  const difference = candidate.passes / cKnown - incumbent.passes / iKnown;
  if (difference > 0) return { outcome: "gain", difference };
  if (difference < 0) return { outcome: "regression", difference };
  if (candidate.fails === 0 && incumbent.fails === 0) return { outcome: "both pass", difference };
  if (candidate.passes === 0 && incumbent.passes === 0) return { outcome: "both fail", difference };
  return { outcome: "tie", difference };
}

/** The inputs a verdict depends on, as a line records them; equal on both sides or the batches differ. */
const INPUTS = ["taskHash", "imageDigest", "graderVersion", "timeoutSeconds"] as const;

function checkSameInputs(
  task: string,
  candidate: readonly ResultLine[],
  incumbent: readonly ResultLine[],
): string[] {
  const problems: string[] = [];
  for (const field of INPUTS) {
    const values = (lines: readonly ResultLine[]) =>
      new Set(
        lines
          // A run refused before any container (an empty diff) used no image.
          .filter((l) => !(field === "imageDigest" && l[field] === null))
          .map((l) => JSON.stringify(l[field] ?? null)),
      );
    const c = values(candidate);
    const i = values(incumbent);
    const all = new Set([...c, ...i]);
    if (all.size > 1) {
      const show = (s: Set<string>) =>
        [...s]
          .map((v) => {
            const text = String(JSON.parse(v)).replace(/^sha256:/, "");
            return text.length > 15 ? `${text.slice(0, 12)}…` : text;
          })
          .join(", ") || "-";
      problems.push(`${task}: ${field} candidate ${show(c)}, incumbent ${show(i)}`);
    }
  }
  return problems;
}

/** `word` as one shell word: as it is when plain, else single-quoted (paths come from batch.json, unsigned). */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** The flags a batch was graded with that a command grading it again must repeat. */
function gradedWith(batch: LoadedBatch["ref"]): string {
  const root = batch.root ? ` --root ${shellQuote(batch.root)}` : "";
  const timeout = batch.timeoutSeconds ? ` --timeout ${batch.timeoutSeconds}` : "";
  return `${root}${timeout}`;
}

/** The regrade command for a batch (a new folder: a resume keeps a TIMEOUT, the cache serves the rest). */
export function regradeCommand(batch: LoadedBatch["ref"]): string {
  return `pnpm grade --batch ${shellQuote(batch.predictionsFile)} --out ${shellQuote(`${batch.dir}-regraded`)}${gradedWith(batch)}`;
}

function resumeCommand(batch: LoadedBatch["ref"]): string {
  return `pnpm grade --batch ${shellQuote(batch.predictionsFile)} --out ${shellQuote(batch.dir)}${gradedWith(batch)}`;
}

interface Counted {
  tasks: number;
  gains: number;
  regressions: number;
  bothPass: number;
  bothFail: number;
  ties: number;
  differences: number[];
}

/**
 * Each task's difference with unknown samples counted as `asPass` says (null: left out). Counted
 * against the candidate: its unknowns fail, the incumbent's pass; for it, the other way round.
 */
function countTasks(tasks: readonly GateTask[], unknowns: "leave out" | "against" | "for"): Counted {
  const out: Counted = {
    tasks: 0,
    gains: 0,
    regressions: 0,
    bothPass: 0,
    bothFail: 0,
    ties: 0,
    differences: [],
  };
  for (const t of tasks) {
    const cUnknownPass = unknowns === "for" ? t.candidate.unknown : 0;
    const iUnknownPass = unknowns === "against" ? t.incumbent.unknown : 0;
    const withUnknown = unknowns !== "leave out";
    const cPass = t.candidate.passes + cUnknownPass;
    const cAll = t.candidate.passes + t.candidate.fails + (withUnknown ? t.candidate.unknown : 0);
    const iPass = t.incumbent.passes + iUnknownPass;
    const iAll = t.incumbent.passes + t.incumbent.fails + (withUnknown ? t.incumbent.unknown : 0);
    if (cAll === 0 || iAll === 0) continue;
    const d = cPass / cAll - iPass / iAll;
    out.tasks += 1;
    out.differences.push(d);
    if (d > 0) out.gains += 1;
    else if (d < 0) out.regressions += 1;
    else if (cPass === cAll && iPass === iAll) out.bothPass += 1;
    else if (cPass === 0 && iPass === 0) out.bothFail += 1;
    else out.ties += 1;
  }
  return out;
}

export interface Judged {
  decision: "promote" | "reject";
  effect: number;
  lower: number;
  upper: number;
  pValue: number;
}

function judge(counted: Counted, method: GateTest["method"], p: GateParameters): Judged {
  const effect = counted.differences.reduce((a, b) => a + b, 0) / counted.tasks;
  const bound = p.mode === "superiority" ? 0 : -p.margin;
  if (method === "exact McNemar") {
    const ci = tangoInterval(counted.gains, counted.regressions, counted.tasks, p.alpha);
    const pValue = mcnemarExact(counted.gains, counted.regressions);
    const promote =
      p.mode === "superiority" ? counted.gains > counted.regressions && pValue < p.alpha : ci.lower > bound;
    return { decision: promote ? "promote" : "reject", effect, lower: ci.lower, upper: ci.upper, pValue };
  }
  return judgeSamples(counted.differences, p);
}

/**
 * The decision on k samples per task, from each task's difference of pass shares: the percentile
 * bootstrap's interval, and for superiority also the sign-flip test's p below alpha (the bootstrap
 * alone promotes too often on few tasks). The plan's simulation runs this very rule.
 */
export function judgeSamples(
  differences: readonly number[],
  p: Pick<GateParameters, "mode" | "margin" | "alpha" | "resamples" | "seed">,
): Judged {
  const effect = differences.reduce((a, b) => a + b, 0) / differences.length;
  const bound = p.mode === "superiority" ? 0 : -p.margin;
  const boot = pairedBootstrap(differences, { resamples: p.resamples, seed: p.seed, alpha: p.alpha });
  const pValue = signFlipTest(differences, { resamples: p.resamples, seed: p.seed });
  // Differences are sums of fractions: a mean that is 0 can be 2e-17. Bounds are cleared by more than that.
  const promote =
    p.mode === "superiority"
      ? effect > EPSILON && boot.lower > EPSILON && pValue < p.alpha
      : boot.lower > bound + EPSILON;
  return { decision: promote ? "promote" : "reject", effect, lower: boot.lower, upper: boot.upper, pValue };
}

/** Rounding room for means of fractions. */
const EPSILON = 1e-9;

const pct = (x: number) => `${(100 * x).toFixed(1)}`;

export interface GateInput {
  candidate: LoadedBatch;
  incumbent: LoadedBatch;
  parameters: GateParameters;
  graderVersion: string;
  now?: Date;
}

/**
 * Decides. Throws BATCHES_DIFFER when a task compared on both sides was graded on different inputs
 * (the older batch must be regraded); otherwise returns the report, whose `decision` is the gate's.
 */
export function decide(input: GateInput): GateReport {
  const { candidate, incumbent, parameters: p } = input;
  if (candidate.ref.batchId === incumbent.ref.batchId)
    throw new OracleError(
      "USAGE",
      `the candidate and the incumbent are the same batch (${candidate.ref.batchId}): a model cannot be gated against itself`,
      {
        hint: "grade the candidate's predictions into a folder of their own: pnpm grade --batch FILE --out DIR",
      },
    );
  const byC = groupByTask(candidate.lines);
  const byI = groupByTask(incumbent.lines);
  const warnings: string[] = [];
  const next: string[] = [];

  // Tasks left out: a line of either side without a comparable run. A task the incumbent has a
  // comparable result for and the candidate has none (no line, or a line of no run, quarantined,
  // not validated) is one the candidate's side could have dropped: it stops the gate unless
  // --allow-missing (else leaving out the tasks a model fails would raise its rate).
  const excluded: GateReport["excluded"] = [];
  const compared: string[] = [];
  const unpaired = { candidate: [] as string[], incumbent: [] as string[] };
  const lacking: string[] = [];
  const allTasks = [...new Set([...byC.keys(), ...byI.keys()])].sort();
  for (const task of allTasks) {
    const c = byC.get(task) ?? [];
    const i = byI.get(task) ?? [];
    const reasons = (lines: ResultLine[], side: string) =>
      [...new Set(lines.map((l) => whyLeftOut(l, p.allowUnvalidated)).filter((w) => w !== null))].map(
        (w) => `${side}: ${w}`,
      );
    const cWhy = reasons(c, "candidate");
    const iWhy = reasons(i, "incumbent");
    if (i.length > 0 && iWhy.length === 0 && (c.length === 0 || cWhy.length > 0)) lacking.push(task);
    if (cWhy.length + iWhy.length > 0) excluded.push({ task, why: [...cWhy, ...iWhy].join("; ") });
    else if (c.length === 0) unpaired.incumbent.push(task);
    else if (i.length === 0) unpaired.candidate.push(task);
    else compared.push(task);
  }

  // 1. The veto: any candidate verdict that means tampering.
  const veto: GateReport["veto"] = candidate.lines
    .filter((l) => classOf(l) === "tamper")
    .map((l) => ({
      id: l.id,
      task: l.task,
      reason: l.reason!,
      diffSha256: l.diffSha256,
      log: l.log,
      message: l.message,
    }));
  const tamperedIncumbent = incumbent.lines.filter((l) => classOf(l) === "tamper").length;
  if (tamperedIncumbent > 0)
    warnings.push(`the incumbent has ${tamperedIncumbent} tampering verdict(s), counted as fails`);

  const differ = compared.flatMap((task) => checkSameInputs(task, byC.get(task)!, byI.get(task)!));
  if (differ.length > 0 && veto.length > 0) {
    // The veto stands whatever else: the tasks graded on other inputs are only left out.
    warnings.push(...differ.map((d) => `graded on different inputs, left out: ${d}`));
    const differs = new Set(differ.map((d) => d.slice(0, d.indexOf(": "))));
    compared.splice(0, compared.length, ...compared.filter((t) => !differs.has(t)));
  } else if (differ.length > 0) {
    const older = candidate.ref.createdAt < incumbent.ref.createdAt ? candidate.ref : incumbent.ref;
    throw new OracleError(
      "BATCHES_DIFFER",
      `the batches graded ${differ.length === 1 ? "a task" : "tasks"} on different inputs, so their verdicts cannot be paired:\n  ${differ.slice(0, 10).join("\n  ")}${differ.length > 10 ? `\n  … and ${differ.length - 10} more` : ""}`,
      {
        hint: `regrade the older batch (by batch.json) on today's tasks, images and grader: ${regradeCommand(older)}; or the other: ${regradeCommand(older === candidate.ref ? incumbent.ref : candidate.ref)}`,
      },
    );
  }

  const tasks: GateTask[] = compared.map((task) => {
    const c = sideOf(byC.get(task)!);
    const i = sideOf(byI.get(task)!);
    return { task, ...outcomeOf(c, i), candidate: c, incumbent: i };
  });

  const unchecked = (["candidate", "incumbent"] as const).filter(
    (s) => input[s].ref.completeness === "unchecked",
  );
  for (const name of unchecked)
    warnings.push(
      `the ${name} batch has no signed manifest, and its predictions file (${input[name].ref.predictionsFile}) is gone or changed: the gate cannot check that no result was deleted`,
    );
  if (unpaired.candidate.length > 0)
    warnings.push(
      `${unpaired.candidate.length} task(s) graded for the candidate only are left out of the test`,
    );
  if (lacking.length > 0 && p.allowMissing)
    warnings.push(
      `--allow-missing: ${lacking.length} task(s) the incumbent was graded on have no comparable candidate result and are left out`,
    );

  // 2. Infrastructure: unknown samples on the compared tasks, per side.
  const rate = (side: "candidate" | "incumbent") => {
    const samples = tasks.reduce((a, t) => a + t[side].samples.length, 0);
    const unknown = tasks.reduce((a, t) => a + t[side].unknown, 0);
    return { samples, unknown, rate: samples === 0 ? 0 : unknown / samples };
  };
  const infra = { threshold: p.maxInfra, candidate: rate("candidate"), incumbent: rate("incumbent") };

  const passRate = (side: "candidate" | "incumbent") => {
    const passes = tasks.reduce((a, t) => a + t[side].passes, 0);
    const samples = tasks.reduce((a, t) => a + t[side].passes + t[side].fails, 0);
    return { passes, samples, rate: samples === 0 ? null : passes / samples };
  };
  // Unvalidated tasks: validating them changes their folders (the sweep's records), so both batches
  // must be graded again after the sweep.
  if (excluded.some((e) => e.why.includes("not validated")))
    next.push(
      `pnpm quarantine-sweep${candidate.ref.root ? ` --root ${shellQuote(candidate.ref.root)}` : ""} --changed, then grade both batches again into new folders (or pass --allow-unvalidated)`,
    );
  if (candidate.ref.predictionsSha256 === incumbent.ref.predictionsSha256)
    warnings.push(
      "both batches graded the same predictions file: this compares two gradings of one model's output",
    );

  const base = {
    parameters: { ...p },
    candidate: candidate.ref,
    incumbent: incumbent.ref,
    veto,
    passRates: { candidate: passRate("candidate"), incumbent: passRate("incumbent") },
    infra,
    excluded,
    unpaired,
    tasks,
    warnings,
    graderVersion: input.graderVersion,
    decidedAt: (input.now ?? new Date()).toISOString(),
  };

  if (veto.length > 0)
    return {
      ...base,
      decision: "reject",
      why: `vetoed: ${veto.length} candidate verdict(s) mean tampering (${[...new Set(veto.map((v) => v.reason))].join(", ")}); a correct fix never gets one`,
      test: null,
      next,
    };

  for (const [name, batch] of [
    ["candidate", candidate.ref],
    ["incumbent", incumbent.ref],
  ] as const) {
    if (batch.completeness === "incomplete") {
      next.push(resumeCommand(batch));
      return {
        ...base,
        decision: "inconclusive",
        why: `the ${name} batch is incomplete: ${batch.missing.length} prediction(s) have no result (resume it)`,
        test: null,
        next,
      };
    }
  }

  if (unchecked.length > 0 && !p.allowMissing)
    return {
      ...base,
      decision: "inconclusive",
      why: `the ${unchecked.join(" and ")} batch cannot be checked for deleted results (no signed manifest, no predictions file): regrade it, or pass --allow-missing`,
      test: null,
      next: unchecked.map((s) => regradeCommand(input[s].ref)),
    };

  if (lacking.length > 0 && !p.allowMissing) {
    const whyOf = new Map(excluded.map((e) => [e.task, e.why]));
    const shown = lacking
      .slice(0, 5)
      .map((t) => `${t}: ${whyOf.get(t) ?? "no prediction"}`)
      .join("; ");
    const noPrediction = lacking.filter((t) => !whyOf.has(t));
    if (noPrediction.length > 0)
      next.push(
        `${resumeCommand(candidate.ref)}  # after adding predictions for ${noPrediction.slice(0, 5).join(", ")}${noPrediction.length > 5 ? ", …" : ""}`,
      );
    return {
      ...base,
      decision: "inconclusive",
      why: `the candidate has no comparable result for ${lacking.length} task(s) the incumbent was graded on (${shown}${lacking.length > 5 ? "; …" : ""}): grade them, or pass --allow-missing to leave them out`,
      test: null,
      next,
    };
  }

  const noisy = (["candidate", "incumbent"] as const).filter((s) => infra[s].rate > p.maxInfra);
  if (noisy.length > 0) {
    for (const s of noisy) next.push(regradeCommand(s === "candidate" ? candidate.ref : incumbent.ref));
    return {
      ...base,
      decision: "inconclusive",
      why: `infrastructure noise: ${noisy.map((s) => `${s} ${infra[s].unknown} of ${infra[s].samples} samples INFRA_ERROR or TIMEOUT (${pct(infra[s].rate)}%)`).join(", ")}, above ${pct(p.maxInfra)}%; regrade`,
      test: null,
      next,
    };
  }

  // 3. The statistics, paired by task.
  const oneSample = tasks.every((t) => t.candidate.samples.length === 1 && t.incumbent.samples.length === 1);
  const method: GateTest["method"] = oneSample ? "exact McNemar" : "paired bootstrap";
  if (!oneSample) {
    const spread = (side: "candidate" | "incumbent") => {
      const counts = tasks.map((t) => t[side].samples.length);
      return { min: Math.min(...counts), max: Math.max(...counts) };
    };
    const c = spread("candidate");
    const i = spread("incumbent");
    if (c.min !== c.max || i.min !== i.max)
      return {
        ...base,
        decision: "inconclusive",
        why: `samples per task differ (candidate ${c.min}${c.max > c.min ? ` to ${c.max}` : ""}, incumbent ${i.min}${i.max > i.min ? ` to ${i.max}` : ""}): give every task the same number of predictions on each side, so that a repeated prediction cannot change the test`,
        test: null,
        next,
      };
  }
  const observed = countTasks(tasks, "leave out");
  const minimum = method === "paired bootstrap" ? MIN_BOOTSTRAP_TASKS : 1;
  if (observed.tasks < minimum) {
    const what = excluded.length > 0 ? ` (${excluded.length} left out of the test: see their reasons)` : "";
    return {
      ...base,
      decision: "inconclusive",
      why:
        observed.tasks === 0
          ? `no task can be compared${what}`
          : `${observed.tasks} comparable task(s): the paired bootstrap needs at least ${MIN_BOOTSTRAP_TASKS} (or give one sample per task for the exact test)`,
      test: null,
      next,
    };
  }
  const result = judge(observed, method, p);
  const unknownSamples = infra.candidate.unknown + infra.incumbent.unknown;
  const sensitivity =
    unknownSamples === 0
      ? null
      : (() => {
          const pick = ({ decision, effect, lower, upper }: Judged) => ({ decision, effect, lower, upper });
          return {
            unknownSamples,
            against: pick(judge(countTasks(tasks, "against"), method, p)),
            for: pick(judge(countTasks(tasks, "for"), method, p)),
          };
        })();
  const test: GateTest = {
    method,
    tasks: observed.tasks,
    effect: result.effect,
    lower: result.lower,
    upper: result.upper,
    level: 1 - p.alpha,
    pValue: result.pValue,
    interval:
      method === "exact McNemar"
        ? "Tango's score interval"
        : `percentile bootstrap, ${p.resamples} resamples, seed ${p.seed}; p from a sign-flip test over tasks`,
    counts: {
      gains: observed.gains,
      regressions: observed.regressions,
      bothPass: observed.bothPass,
      bothFail: observed.bothFail,
      ties: observed.ties,
    },
    sensitivity,
  };
  const effect = `${pct(result.effect)} points [${pct(result.lower)}, ${pct(result.upper)}] at ${pct(1 - p.alpha)}%`;
  if (sensitivity && sensitivity.against.decision !== sensitivity.for.decision) {
    for (const [s, batch] of [
      ["candidate", candidate.ref],
      ["incumbent", incumbent.ref],
    ] as const)
      if (infra[s].unknown > 0) next.push(regradeCommand(batch));
    return {
      ...base,
      decision: "inconclusive",
      why: `${unknownSamples} sample(s) of infrastructure noise could decide it: counted against the candidate it would ${sensitivity.against.decision}, for it ${sensitivity.for.decision}; regrade`,
      test,
      next,
    };
  }
  const decision = sensitivity ? sensitivity.against.decision : result.decision;
  if (method === "exact McNemar" && p.mode === "superiority" && decision === "reject" && result.lower > 0)
    warnings.push(
      `Tango's interval excludes 0, but the exact McNemar test, which decides, gives p = ${result.pValue.toPrecision(3)}, not below alpha ${p.alpha}: at this size the two disagree, and the exact test is the conservative one`,
    );
  const rule =
    p.mode === "superiority"
      ? decision === "promote"
        ? `better than the incumbent: ${effect}, p = ${result.pValue.toPrecision(3)}`
        : `not shown better than the incumbent: ${effect}, p = ${result.pValue.toPrecision(3)}`
      : decision === "promote"
        ? `no worse than the incumbent by more than ${pct(p.margin)} points: ${effect}`
        : `may be worse than the incumbent by more than ${pct(p.margin)} points: ${effect}`;
  return { ...base, decision, why: `${method} over ${observed.tasks} tasks: ${rule}`, test, next };
}
