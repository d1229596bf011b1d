// `oracle-gate --plan`: how many tasks (and samples per task) the gate needs to see a given
// difference, from a stated model of tasks, and the power of the gate's own procedure at that size,
// by simulation.
//
// The model: each task has an incumbent solve probability q drawn from a Beta distribution with mean
// `passRate` and intra-task correlation `icc` (how much a task, rather than luck, decides a sample:
// 0 every task alike, 1 each task always or never solved); the candidate gains `effect` on average,
// in proportion to each task's room to improve. The two models' samples are independent given the task.

import { judgeSamples } from "./decide.js";
import { mcnemarExact, normalQuantile, seededRandom } from "./stats.js";

export interface PlanInput {
  /** The difference in pass rate to detect (0.05: five points). */
  effect: number;
  alpha: number;
  power: number;
  /** Samples per task on each side, one plan for each. */
  samples: number[];
  passRate: number;
  icc: number;
  mode: "superiority" | "non-inferiority";
  margin: number;
  /** Simulated gates per plan (0: none). */
  simulations: number;
  seed: number;
}

export interface PlanRow {
  samples: number;
  /** Tasks needed (normal approximation; Connor's formula for one sample and McNemar). */
  tasks: number;
  /** Predictions each model makes: tasks × samples. */
  predictions: number;
  /** The per-task variance of the paired difference the size rests on. */
  variance: number;
  /** Share of simulated gates at that size that promote (null when not simulated). */
  simulatedPower: number | null;
  /**
   * The smallest size, in steps of 5% from `tasks`, at which the gate's own procedure reached the
   * power in simulation (null when not simulated); the formula is a normal approximation.
   */
  simulatedTasks: number | null;
  /** Share of simulated gates at `simulatedTasks` that promote. */
  simulatedTasksPower: number | null;
  /** The test the gate runs at that size. */
  test: "exact McNemar" | "paired bootstrap";
}

/**
 * The candidate's solve probability on a task the incumbent solves with probability q: the effect
 * taken in proportion to the room left (q + effect·(1 − q)/(1 − passRate)), so that it never passes
 * 1 and adds exactly `effect` on average.
 */
function candidateOf(q: number, input: Pick<PlanInput, "effect" | "passRate">): number {
  return q + (input.effect * (1 - q)) / (1 - input.passRate);
}

/**
 * The variance, over tasks and samples, of one task's paired difference with `samples` samples a
 * side: Var(r − q) + (E[q(1 − q)] + E[r(1 − r)]) / samples, in closed form for the Beta model.
 */
function pairedVariance(input: PlanInput, samples: number): number {
  const { effect, passRate: p, icc } = input;
  const varQ = icc * p * (1 - p);
  const eQ2 = p * p + varQ;
  const a = effect / (1 - p);
  const b = 1 - a;
  const eR = p + effect;
  const eR2 = a * a + 2 * a * b * p + b * b * eQ2;
  const within = p - eQ2 + (eR - eR2);
  return a * a * varQ + within / samples;
}

/** Tasks needed for `samples` samples per task. */
export function tasksNeeded(input: PlanInput, samples: number): { tasks: number; variance: number } {
  const { effect, alpha, power } = input;
  const za = normalQuantile(1 - alpha / 2);
  const zb = normalQuantile(power);
  const target = input.mode === "superiority" ? effect : effect + input.margin;
  if (!(target > 0))
    throw new RangeError(
      input.mode === "superiority"
        ? "--effect must be above 0 (the gain to detect)"
        : "--effect plus --margin must be above 0",
    );
  if (effect >= 1 - input.passRate)
    throw new RangeError(`--effect must be below 1 − the pass rate (${(1 - input.passRate).toFixed(3)})`);
  const variance = pairedVariance(input, samples);
  if (samples === 1 && input.mode === "superiority") {
    // Connor (1987), for McNemar: ψ, the share of discordant tasks, is the variance plus effect².
    const psi = variance + effect * effect;
    const n = (za * Math.sqrt(psi) + zb * Math.sqrt(variance)) ** 2 / effect ** 2;
    return { tasks: Math.ceil(n), variance };
  }
  return { tasks: Math.ceil(((za + zb) ** 2 * variance) / target ** 2), variance };
}

/** A Gamma(shape, 1) draw (Marsaglia and Tsang; shape < 1 by the boost). */
function gamma(shape: number, random: () => number, normal: () => number): number {
  if (shape < 1) return gamma(shape + 1, random, normal) * random() ** (1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = normal();
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = random();
    if (u < 1 - 0.0331 * x ** 4 || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
  }
}

/** Draws a task's incumbent solve probability from the model's Beta distribution. */
function taskDrawer(passRate: number, icc: number, random: () => number): () => number {
  if (icc <= 0) return () => passRate;
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const scale = (1 - icc) / icc;
  const a = Math.max(1e-3, passRate * scale);
  const b = Math.max(1e-3, (1 - passRate) * scale);
  return () => {
    const x = gamma(a, random, normal);
    const y = gamma(b, random, normal);
    return x + y === 0 ? passRate : x / (x + y);
  };
}

/** Share of `runs` simulated gates of `tasks` tasks × `samples` samples that promote. */
export function simulatePower(input: PlanInput, tasks: number, samples: number, runs: number): number {
  const random = seededRandom(input.seed);
  const draw = taskDrawer(input.passRate, input.icc, random);
  const passes = (p: number) => {
    let n = 0;
    for (let s = 0; s < samples; s++) if (random() < p) n += 1;
    return n;
  };
  const bound = input.mode === "superiority" ? 0 : -input.margin;
  let promoted = 0;
  for (let run = 0; run < runs; run++) {
    if (samples === 1) {
      let gains = 0;
      let losses = 0;
      for (let t = 0; t < tasks; t++) {
        const q = draw();
        const c = passes(candidateOf(q, input));
        const i = passes(q);
        if (c > i) gains += 1;
        else if (i > c) losses += 1;
      }
      if (input.mode === "superiority") {
        if (gains > losses && mcnemarExact(gains, losses) < input.alpha) promoted += 1;
        continue;
      }
      // Non-inferiority with one sample is judged on the score interval; its normal form here.
      const n = tasks;
      const diff = (gains - losses) / n;
      const se = Math.sqrt(Math.max(1e-12, (gains + losses) / n - diff * diff) / n);
      if (diff - normalQuantile(1 - input.alpha / 2) * se > bound) promoted += 1;
      continue;
    }
    const differences: number[] = [];
    for (let t = 0; t < tasks; t++) {
      const q = draw();
      differences.push((passes(candidateOf(q, input)) - passes(q)) / samples);
    }
    const judged = judgeSamples(differences, {
      mode: input.mode,
      margin: input.margin,
      alpha: input.alpha,
      resamples: 1000,
      seed: Math.floor(random() * 2 ** 32),
    });
    if (judged.decision === "promote") promoted += 1;
  }
  return promoted / runs;
}

/** The simulated power at the formula's size, and the smallest size that reaches the power. */
function simulate(
  input: PlanInput,
  tasks: number,
  samples: number,
): Pick<PlanRow, "simulatedPower" | "simulatedTasks" | "simulatedTasksPower"> {
  if (input.simulations <= 0)
    return { simulatedPower: null, simulatedTasks: null, simulatedTasksPower: null };
  const simulatedPower = simulatePower(input, tasks, samples, input.simulations);
  let n = tasks;
  let power = simulatedPower;
  while (power < input.power && n < 4 * tasks) {
    n = Math.ceil(n * 1.05);
    power = simulatePower(input, n, samples, input.simulations);
  }
  return { simulatedPower, simulatedTasks: n, simulatedTasksPower: power };
}

export function plan(input: PlanInput): PlanRow[] {
  return input.samples.map((samples) => {
    const { tasks, variance } = tasksNeeded(input, samples);
    return {
      samples,
      tasks,
      predictions: tasks * samples,
      variance,
      ...simulate(input, tasks, samples),
      test: samples === 1 ? "exact McNemar" : "paired bootstrap",
    };
  });
}

/**
 * The pass rate and intra-task correlation of a batch's samples (ANOVA estimator over tasks), for
 * a plan from real data. The correlation needs a task with two samples or more; null without one.
 */
export function estimateModel(byTask: ReadonlyArray<{ passes: number; samples: number }>): {
  passRate: number;
  icc: number | null;
} {
  const tasks = byTask.filter((t) => t.samples > 0);
  const total = tasks.reduce((a, t) => a + t.samples, 0);
  if (total === 0) return { passRate: 0.5, icc: null };
  const passRate = tasks.reduce((a, t) => a + t.passes, 0) / total;
  const T = tasks.length;
  if (T < 2 || total === T) return { passRate, icc: null };
  const between = tasks.reduce((a, t) => a + t.samples * (t.passes / t.samples - passRate) ** 2, 0) / (T - 1);
  const within = tasks.reduce((a, t) => a + (t.passes - t.passes ** 2 / t.samples), 0) / (total - T);
  const k0 = (total - tasks.reduce((a, t) => a + t.samples ** 2, 0) / total) / (T - 1);
  const denominator = between + (k0 - 1) * within;
  if (denominator <= 0) return { passRate, icc: null };
  return { passRate, icc: Math.min(0.99, Math.max(0, (between - within) / denominator)) };
}
