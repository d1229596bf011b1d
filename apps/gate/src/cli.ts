import { createHash } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import {
  type Command,
  type CommandLineSpec,
  EXIT,
  parseCommandLine,
  printable,
  runCommand,
  usageError,
  write,
} from "@oracle/cli-kit";
import { GRADER_VERSION, loadSigningKey, trustList } from "@oracle/grader";
import {
  type GateBatch,
  GateReportSchema,
  OracleError,
  REASON_CLASS,
  readJsonFile,
  writeJsonAtomic,
} from "@oracle/spec";
import { z } from "zod";
import { decide, type GateParameters } from "./decide.js";
import { estimateModel, type PlanInput, plan } from "./plan.js";
import { loadBatch } from "./read-batch.js";
import { renderHtml, renderMarkdown, renderText } from "./report.js";
import { signDecision, verifyDecision } from "./signed.js";

export const HELP = `Usage: oracle-gate --candidate BATCH_DIR --incumbent BATCH_DIR [options]
       oracle-gate --plan [--effect 0.05] [--samples 1,5] [--incumbent BATCH_DIR] [options]
       oracle-gate --verify gate.json [--trust-key FILE]
       pnpm gate ...

Decides whether a candidate model replaces the incumbent, from two graded batches (the --out
folders of pnpm grade --batch). Every result line must verify (signed by this installation's key
or a --trust-key, for its own batch). Results are paired by task; a task graded on other inputs
(task content, image digest, grader, limit) on the two sides stops the gate (regrade the older
batch). Then, in order:
  1. veto: any candidate verdict that means tampering (REPORT_INCONSISTENT, DIFF_SHADOWS_RUNNER,
     SEAL_RECORDS_INCONSISTENT) rejects the model, listing the tasks and diffs;
  2. infrastructure: INFRA_ERROR or TIMEOUT on more than --max-infra of either side's samples, an
     incomplete batch, a task the incumbent has and the candidate lacks, or unknown samples that could decide (counted against the candidate and for
     it, the decisions differ) make it inconclusive, with the regrade command;
  3. statistics, paired by task, on tasks both sides ran and a sweep validated: one sample per task:
     the exact McNemar test (Tango's score interval for the effect); several (predictions with
     repeated task ids): a seeded paired bootstrap over tasks. Superiority by default: promote when
     the candidate is better at --alpha; with --margin M, non-inferiority: promote when the
     interval's lower end is above -M.
Writes gate.json (signed), gate.md and gate.html to --out, and a summary on stdout.

--plan prints how many tasks (and predictions) the gate needs to detect --effect at --alpha with
--power, for each --samples count, and the power of the gate's own procedure at that size
(simulated): from --pass-rate and --icc (the share of a sample's variance the task decides), or
both estimated from --incumbent's batch.

Options:
  --candidate DIR       the candidate model's batch folder
  --incumbent DIR       the incumbent's batch folder
  --out DIR             where the reports go (default <candidate>/gate)
  --margin M            non-inferiority with this margin (0.02: two points); default superiority
  --alpha A             significance level, two-sided (default 0.05)
  --max-infra R         share of INFRA_ERROR or TIMEOUT samples on either side above which the gate
                        is inconclusive (default 0.05)
  --resamples N         bootstrap resamples (default 10000)
  --seed N              bootstrap seed (default 1): the same seed, the same interval
  --allow-unvalidated   compare tasks no sweep validated on these inputs too (default: left out)
  --allow-missing       leave out tasks the incumbent has a result for and the candidate has none
                        (no line, or no comparable run); default: inconclusive, so that dropping
                        the tasks a model fails cannot raise its rate
  --expect-predictions FILE
                        the candidate batch must have graded exactly this predictions file (its
                        signed manifest names the file's SHA-256): ties the batch to the model's output
  --trust-key FILE      a public key (PEM) whose signed results count too (repeatable)
  --json                print gate.json on stdout instead of the summary
  --plan                plan the size instead of deciding
  --verify FILE         check a gate.json's signature, that it says what was signed, and that both
                        results files are still the ones it decided on (exit 0, else 1)
  --effect D            (plan) the difference to detect (default 0.05)
  --power P             (plan) default 0.8
  --samples LIST        (plan) samples per task to plan for, comma-separated (default 1,5)
  --pass-rate P         (plan) the incumbent's pass rate (default 0.5, or --incumbent's)
  --icc R               (plan) intra-task correlation (default 0.5, or --incumbent's)
  --simulations N       (plan) simulated gates per size tried (default 1000; 0 for none)
  -h, --help            show this help

Exit codes: 0 promote (--plan: printed), 1 reject, 2 bad arguments or unusable batches (unverified
results RESULT_UNVERIFIED, batches graded on other inputs BATCHES_DIFFER), 3 inconclusive (or the
gate could not run).`;

const fraction = (name: string, min: number, max: number) =>
  z
    .string()
    .regex(/^(\d+(\.\d*)?|\.\d+)$/, `${name} must be a number from ${min} to ${max}`)
    .transform(Number)
    .pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));

/** The command line: its flags and the options they fill (docs/reference.md lists each; a test holds it so). */
export const GATE_LINE = {
  command: "oracle-gate",
  flags: {
    candidate: { type: "string" },
    incumbent: { type: "string" },
    out: { type: "string" },
    margin: { type: "string" },
    alpha: { type: "string" },
    "max-infra": { type: "string" },
    resamples: { type: "string" },
    seed: { type: "string" },
    "allow-unvalidated": { type: "boolean" },
    "allow-missing": { type: "boolean" },
    "expect-predictions": { type: "string" },
    "trust-key": { type: "string", multiple: true },
    json: { type: "boolean" },
    plan: { type: "boolean" },
    verify: { type: "string" },
    effect: { type: "string" },
    power: { type: "string" },
    samples: { type: "string" },
    "pass-rate": { type: "string" },
    icc: { type: "string" },
    simulations: { type: "string" },
  },
  schema: z.strictObject({
    candidate: z.string().min(1).optional(),
    incumbent: z.string().min(1).optional(),
    out: z.string().min(1).optional(),
    margin: fraction("--margin", 0, 1).optional(),
    alpha: fraction("--alpha", 1e-6, 0.5).default(0.05),
    maxInfra: fraction("--max-infra", 0, 1).default(0.05),
    resamples: z
      .string()
      .regex(/^\d+$/, "must be a whole number")
      .transform(Number)
      .pipe(z.number().int().min(100).max(1_000_000))
      .default(10_000),
    seed: z
      .string()
      .regex(/^\d+$/, "must be a whole number")
      .transform(Number)
      .pipe(
        z
          .number()
          .int()
          .max(2 ** 32 - 1),
      )
      .default(1),
    allowUnvalidated: z.boolean().default(false),
    allowMissing: z.boolean().default(false),
    expectPredictions: z.string().min(1).optional(),
    trustKey: z.array(z.string().min(1)).default([]),
    json: z.boolean().default(false),
    plan: z.boolean().default(false),
    verify: z.string().min(1).optional(),
    effect: fraction("--effect", 0, 1).default(0.05),
    power: fraction("--power", 0.5, 0.999).default(0.8),
    samples: z
      .string()
      .regex(/^\d+(,\d+)*$/, "must be whole numbers separated by commas: 1,5")
      .transform((s) => s.split(",").map(Number))
      .pipe(z.array(z.number().int().min(1).max(1000)))
      .default([1, 5]),
    passRate: fraction("--pass-rate", 0.001, 0.999).optional(),
    icc: fraction("--icc", 0, 0.99).optional(),
    simulations: z
      .string()
      .regex(/^\d+$/, "must be a whole number")
      .transform(Number)
      .pipe(z.number().int().max(100_000))
      .default(1000),
  }),
} satisfies CommandLineSpec<z.ZodType>;

type Options = z.output<(typeof GATE_LINE)["schema"]> & { cwd: string };

/** Flags that mean something only to --plan. */
const PLAN_FLAGS = ["--effect", "--power", "--samples", "--pass-rate", "--icc", "--simulations"];

export function parseArgs(argv: readonly string[], cwd: string): Options {
  const o = parseCommandLine(GATE_LINE, argv) as z.output<(typeof GATE_LINE)["schema"]>;
  if (!o.plan && !o.verify && (!o.candidate || !o.incumbent))
    throw usageError("oracle-gate", "name both batches: --candidate DIR --incumbent DIR (or --plan)");
  const planOnly = PLAN_FLAGS.filter((flag) => argv.some((a) => a === flag || a.startsWith(`${flag}=`)));
  if (!o.plan && planOnly.length > 0)
    throw usageError(
      "oracle-gate",
      `${planOnly.join(", ")}: only with --plan (a decision does not use them)`,
    );
  return { ...o, cwd };
}

const EXIT_BY_DECISION = { promote: EXIT.OK, reject: EXIT.FAIL, inconclusive: EXIT.INCONCLUSIVE } as const;

async function runPlan(o: Options): Promise<number> {
  let passRate = o.passRate ?? 0.5;
  let icc = o.icc ?? 0.5;
  let source = "assumed";
  if (o.incumbent) {
    const batch = await loadBatch(
      resolve(o.cwd, o.incumbent),
      trustList(
        loadSigningKey(),
        o.trustKey.map((f) => resolve(o.cwd, f)),
      ),
    );
    const byTask = new Map<string, { passes: number; samples: number }>();
    for (const line of batch.lines) {
      // Only what says something about the model: a pass, or a fail (tampering counts as one).
      const kind = line.outcome === "graded" && line.reason !== null ? REASON_CLASS[line.reason] : null;
      if (kind !== "pass" && kind !== "fail" && kind !== "tamper") continue;
      const t = byTask.get(line.task) ?? { passes: 0, samples: 0 };
      t.samples += 1;
      if (kind === "pass") t.passes += 1;
      byTask.set(line.task, t);
    }
    const m = estimateModel([...byTask.values()]);
    if (byTask.size === 0 && o.passRate === undefined)
      throw new OracleError(
        "FILE_INVALID",
        `${batch.ref.dir}: no passed or failed sample to estimate a pass rate from`,
        {
          hint: "give --pass-rate (and --icc), or a batch with graded results",
        },
      );
    if (o.passRate === undefined && (m.passRate <= 0 || m.passRate >= 1))
      throw new OracleError(
        "FILE_INVALID",
        `${batch.ref.dir}: every sample ${m.passRate >= 1 ? "passed" : "failed"}: a pass rate of ${m.passRate} leaves no room to plan around`,
        { hint: "give --pass-rate for the incumbent you expect" },
      );
    passRate = o.passRate ?? m.passRate;
    icc = o.icc ?? m.icc ?? icc;
    source = `from ${batch.ref.dir} (${byTask.size} tasks${m.icc === null ? "; one sample per task: icc assumed" : ""})`;
  }
  const input: PlanInput = {
    effect: o.effect,
    alpha: o.alpha,
    power: o.power,
    samples: o.samples,
    passRate,
    icc,
    mode: o.margin === undefined ? "superiority" : "non-inferiority",
    margin: o.margin ?? 0,
    simulations: o.simulations,
    seed: o.seed,
  };
  let rows: ReturnType<typeof plan>;
  try {
    rows = plan(input);
  } catch (error) {
    if (error instanceof RangeError) throw usageError("oracle-gate --plan", error.message);
    throw error;
  }
  if (o.json) {
    await write(process.stdout, `${JSON.stringify({ input, source, rows }, null, 2)}\n`);
    return EXIT.OK;
  }
  const what =
    input.mode === "superiority"
      ? `a ${(100 * input.effect).toFixed(1)}-point gain`
      : `non-inferiority within ${(100 * input.margin).toFixed(1)} points at a true difference of ${(100 * input.effect).toFixed(1)}`;
  const lines = [
    `plan: to show ${what} at alpha ${input.alpha} with power ${input.power}; incumbent pass rate ${input.passRate.toFixed(3)}, icc ${input.icc.toFixed(2)} (${source})`,
    ...rows.map(
      (r) =>
        `  ${r.samples} sample(s) per task: ${r.tasks} tasks, ${r.predictions} predictions per model (${r.test}, normal approximation)${
          r.simulatedPower === null || r.simulatedTasks === null || r.simulatedTasksPower === null
            ? ""
            : `; simulated over ${input.simulations} gates: power ${r.simulatedPower.toFixed(2)} at ${r.tasks} tasks${
                r.simulatedTasks === r.tasks
                  ? ""
                  : `, ${r.simulatedTasksPower.toFixed(2)} at ${r.simulatedTasks} tasks (${r.simulatedTasks * r.samples} predictions)`
              }`
        }`,
    ),
    "  model: each task's solve probability varies (Beta, mean the pass rate, intra-task correlation icc); the candidate gains the effect on average, in proportion to each task's room to improve",
  ];
  await write(process.stdout, `${lines.join("\n")}\n`);
  return EXIT.OK;
}

/** Refuses a candidate batch that did not grade exactly `file` (by its signed manifest). */
async function checkPredictions(batch: GateBatch, file: string): Promise<void> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw new OracleError(
      "FILE_INVALID",
      `${file}: cannot read it (${(error as NodeJS.ErrnoException).code})`,
    );
  }
  const sha = createHash("sha256").update(bytes).digest("hex");
  if (!batch.manifest || batch.predictionsSha256 !== sha)
    throw new OracleError(
      "RESULT_UNVERIFIED",
      `${batch.dir} ${batch.manifest ? `graded predictions ${batch.predictionsSha256.slice(0, 12)}` : "has no signed manifest"}, not ${file} (${sha.slice(0, 12)})`,
      { hint: `grade that file into a folder of its own: pnpm grade --batch ${file} --out DIR` },
    );
}

async function runVerify(o: Options, file: string): Promise<number> {
  const path = resolve(o.cwd, file);
  let report: ReturnType<typeof GateReportSchema.parse>;
  try {
    report = await readJsonFile(GateReportSchema, path);
  } catch (error) {
    throw new OracleError("FILE_INVALID", `${path}: not a gate report (${(error as Error).message})`);
  }
  const verified = verifyDecision(
    report,
    trustList(
      loadSigningKey(),
      o.trustKey.map((f) => resolve(o.cwd, f)),
    ),
  );
  const what = `${report.decision} (candidate results ${report.candidate.resultsSha256.slice(0, 12)}, incumbent ${report.incumbent.resultsSha256.slice(0, 12)}, decided ${report.decidedAt})`;
  // The signature covers the results files' hashes: say whether the files are still those.
  const files: string[] = [];
  let changed = false;
  for (const side of ["candidate", "incumbent"] as const) {
    const results = join(report[side].dir, "results.jsonl");
    let now: string | null = null;
    try {
      now = createHash("sha256")
        .update(await readFile(results))
        .digest("hex");
    } catch {
      // Gone: said below.
    }
    const state = now === null ? "gone" : now === report[side].resultsSha256 ? "as signed" : "changed since";
    if (now !== null && now !== report[side].resultsSha256) changed = true;
    files.push(`${side} ${printable(results, { oneLine: true })} ${state}`);
  }
  await write(
    process.stdout,
    verified.ok
      ? `ok ${printable(path, { oneLine: true })}: ${what}; signed by ${verified.keyid.slice(0, 12)}; results files: ${files.join(", ")}\n`
      : `UNVERIFIED ${printable(path, { oneLine: true })}: ${verified.why}\n`,
  );
  return verified.ok && !changed ? EXIT.OK : EXIT.FAIL;
}

export const gateCommand: Command<Options> = {
  name: "oracle-gate",
  pnpmScript: "gate",
  help: HELP,
  parse: (argv, at) => parseArgs(argv, at.cwd),
  run: async (o) => {
    if (o.plan) return runPlan(o);
    if (o.verify) return runVerify(o, o.verify);
    const trusted = trustList(
      loadSigningKey(),
      o.trustKey.map((f) => resolve(o.cwd, f)),
    );
    const candidateDir = resolve(o.cwd, o.candidate!);
    const [candidate, incumbent] = await Promise.all([
      loadBatch(candidateDir, trusted),
      loadBatch(resolve(o.cwd, o.incumbent!), trusted),
    ]);
    if (o.expectPredictions) await checkPredictions(candidate.ref, resolve(o.cwd, o.expectPredictions));
    const parameters: GateParameters = {
      mode: o.margin === undefined ? "superiority" : "non-inferiority",
      margin: o.margin ?? 0,
      alpha: o.alpha,
      maxInfra: o.maxInfra,
      resamples: o.resamples,
      seed: o.seed,
      allowUnvalidated: o.allowUnvalidated,
      allowMissing: o.allowMissing,
    };
    const report = signDecision(
      decide({ candidate, incumbent, parameters, graderVersion: GRADER_VERSION }),
      loadSigningKey(),
    );
    const outDir = resolve(o.cwd, o.out ?? join(candidateDir, "gate"));
    try {
      await mkdir(outDir, { recursive: true });
    } catch (error) {
      throw new OracleError(
        "FILE_INVALID",
        `--out ${outDir}: cannot make the reports' folder (${(error as NodeJS.ErrnoException).code})`,
        {
          hint: "name a folder (new or existing), not a file",
        },
      );
    }
    const files = [join(outDir, "gate.json"), join(outDir, "gate.md"), join(outDir, "gate.html")];
    await writeJsonAtomic(files[0]!, report);
    await writeFile(files[1]!, renderMarkdown(report, outDir));
    await writeFile(files[2]!, renderHtml(report, outDir));
    await write(process.stdout, o.json ? `${JSON.stringify(report, null, 2)}\n` : renderText(report, files));
    return EXIT_BY_DECISION[report.decision];
  },
};

export function main(argv: readonly string[]): Promise<number> {
  return runCommand(gateCommand, argv);
}
