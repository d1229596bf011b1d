import { describe, expect, it } from "vitest";
import { estimateModel, plan, simulatePower, tasksNeeded } from "./plan.js";
import {
  binomialCdf,
  mcnemarExact,
  normalCdf,
  normalQuantile,
  pairedBootstrap,
  signFlipTest,
  tangoInterval,
} from "./stats.js";

// Reference values: Fagerland, Lydersen and Laake, "The McNemar test for binary matched-pairs data"
// (BMC Med Res Methodol 13:91, 2013), the airway hyper-responsiveness example (1 and 7 discordant
// pairs of 21): exact conditional p = 0.070, Tango's score interval -0.517 to -0.026; the others
// from scipy 1.17 (binomtest, norm.ppf, and Tango's interval solved numerically with the restricted
// MLE found by an optimiser, not the closed form used here).

describe("the exact McNemar test", () => {
  it.each([
    [1, 7, 0.0703125],
    [7, 1, 0.0703125],
    [12, 5, 0.143463134765625],
    [30, 10, 0.0022214337732293643],
    [6, 0, 0.03125],
    [5, 0, 0.0625],
  ])("%i gains, %i losses: p = %f", (gains, losses, p) => {
    expect(mcnemarExact(gains, losses)).toBeCloseTo(p, 12);
  });

  it("no discordant task: p = 1; equal counts: p = 1 (capped)", () => {
    expect(mcnemarExact(0, 0)).toBe(1);
    expect(mcnemarExact(4, 4)).toBe(1);
  });

  it("stays finite for tens of thousands of discordant tasks", () => {
    const p = mcnemarExact(10_400, 10_000);
    expect(p).toBeGreaterThan(0);
    expect(p).toBeLessThan(0.01);
    expect(binomialCdf(10, 20_000, 0.5)).toBeGreaterThanOrEqual(0);
  });
});

describe("Tango's score interval", () => {
  it.each([
    [1, 7, 21, -0.5172322772713622, -0.02600303246079833],
    [0, 0, 10, -0.2775328132373247, 0.2775327998629023],
    [12, 5, 60, -0.019466458952623864, 0.2540224977198785],
    [30, 10, 200, 0.03989636536456011, 0.1636418093693003],
    [6, 0, 6, 0.21933143009788156, 1],
  ])("%i gains, %i losses of %i tasks: [%f, %f]", (gains, losses, n, lower, upper) => {
    const ci = tangoInterval(gains, losses, n, 0.05);
    expect(ci.lower).toBeCloseTo(lower, 6);
    expect(ci.upper).toBeCloseTo(upper, 6);
  });
});

describe("the normal distribution", () => {
  it.each([
    [0.975, 1.959963984540054],
    [0.8, 0.8416212335729143],
    [1e-5, -4.264890793922825],
    [0.5, 0],
  ])("quantile(%f) = %f", (p, z) => {
    expect(normalQuantile(p)).toBeCloseTo(z, 8);
  });

  it("cdf(1.3) = 0.9031995154143897", () => {
    expect(normalCdf(1.3)).toBeCloseTo(0.9031995154143897, 6);
    expect(normalCdf(-1.3)).toBeCloseTo(1 - 0.9031995154143897, 6);
  });
});

/** 200 tasks: 50 gains (+1), 30 losses (-1), 120 ties: mean 0.1, standard error 0.04416. */
const SYNTHETIC = [...Array(50).fill(1), ...Array(30).fill(-1), ...Array(120).fill(0)] as number[];

describe("the paired bootstrap", () => {
  it("on synthetic data its interval is the normal one within a hundredth", () => {
    const b = pairedBootstrap(SYNTHETIC, { resamples: 10_000, seed: 1, alpha: 0.05 });
    expect(b.effect).toBeCloseTo(0.1, 12);
    const se = Math.sqrt((80 / 200 - 0.01) / 200);
    expect(Math.abs(b.lower - (0.1 - 1.96 * se))).toBeLessThan(0.01);
    expect(Math.abs(b.upper - (0.1 + 1.96 * se))).toBeLessThan(0.01);
  });

  it("a fixed seed gives identical output; another seed another, close one", () => {
    const one = pairedBootstrap(SYNTHETIC, { resamples: 2_000, seed: 42, alpha: 0.05 });
    expect(pairedBootstrap(SYNTHETIC, { resamples: 2_000, seed: 42, alpha: 0.05 })).toEqual(one);
    const other = pairedBootstrap(SYNTHETIC, { resamples: 2_000, seed: 43, alpha: 0.05 });
    expect(other).not.toEqual(one);
    expect(Math.abs(other.lower - one.lower)).toBeLessThan(0.02);
  });

  it("every task the same difference: a point", () => {
    const b = pairedBootstrap([0.5, 0.5, 0.5], { resamples: 500, seed: 1, alpha: 0.05 });
    expect([b.lower, b.effect, b.upper]).toEqual([0.5, 0.5, 0.5]);
  });

  it("refuses no tasks", () => {
    expect(() => pairedBootstrap([], { resamples: 10, seed: 1, alpha: 0.05 })).toThrow(/no tasks/);
  });
});

const PLAN = {
  effect: 0.05,
  alpha: 0.05,
  power: 0.8,
  samples: [1, 5],
  passRate: 0.5,
  icc: 0.5,
  mode: "superiority" as const,
  margin: 0,
  simulations: 0,
  seed: 1,
};

describe("the plan", () => {
  // With icc 0 every task is alike (q = 0.5, r = 0.55): the paired variance is q(1 - q) + r(1 - r).
  const FLAT = { ...PLAN, icc: 0 };
  const within = 0.25 + 0.55 * 0.45;

  it("one sample: Connor's formula (icc 0: psi = 0.5, effect 0.05: 1568 tasks)", () => {
    const expected = Math.ceil(
      (1.959963984540054 * Math.sqrt(within + 0.0025) + 0.8416212335729143 * Math.sqrt(within)) ** 2 / 0.0025,
    );
    expect(tasksNeeded(FLAT, 1)).toEqual({ tasks: expected, variance: expect.closeTo(within, 12) });
    expect(expected).toBe(1568);
  });

  it("k samples divide the within-task variance", () => {
    expect(tasksNeeded(FLAT, 5).tasks).toBe(Math.ceil((7.848879734349764 * (within / 5)) / 0.0025));
  });

  it("task-level spread (icc) moves variance from samples to tasks: more samples help less", () => {
    const one = tasksNeeded(PLAN, 1).tasks;
    const five = tasksNeeded(PLAN, 5).tasks;
    expect(five).toBeGreaterThan(one / 5);
    expect(five).toBeLessThan(one);
  });

  it("non-inferiority sizes on effect + margin", () => {
    const ni = tasksNeeded({ ...FLAT, mode: "non-inferiority", effect: 0, margin: 0.05 }, 5);
    expect(ni.tasks).toBe(Math.ceil((7.848879734349764 * (0.5 / 5)) / 0.0025));
  });

  it("the gate's own procedure at the planned size has about the planned power (simulated, seeded)", () => {
    for (const samples of [1, 5]) {
      const { tasks } = tasksNeeded(PLAN, samples);
      const power = simulatePower(PLAN, tasks, samples, 200);
      expect(power).toBeGreaterThan(0.65);
      expect(power).toBeLessThan(0.9);
      expect(simulatePower(PLAN, tasks, samples, 200)).toBe(power);
    }
  });

  it("the simulated size is the first, in steps of 5%, whose simulated power reaches the target", () => {
    const [row] = plan({ ...PLAN, samples: [1], simulations: 300 });
    expect(row!.simulatedTasks).toBeGreaterThanOrEqual(row!.tasks);
    expect(row!.simulatedTasksPower).toBeGreaterThanOrEqual(0.8);
    if (row!.simulatedTasks! > row!.tasks) expect(row!.simulatedPower).toBeLessThan(0.8);
  });

  it("estimates pass rate and intra-task correlation from a batch", () => {
    const always = Array.from({ length: 20 }, (_, i) => ({ passes: i < 10 ? 5 : 0, samples: 5 }));
    const m = estimateModel(always);
    expect(m.passRate).toBe(0.5);
    expect(m.icc).toBeGreaterThan(0.95);
    expect(estimateModel([{ passes: 1, samples: 1 }]).icc).toBeNull();
  });
});

describe("the sign-flip test", () => {
  it("is exact when every sign assignment fits in the resamples: 12 gains of 12 tasks, p = 2/4096", () => {
    const twelve = Array(12).fill(1) as number[];
    expect(signFlipTest(twelve, { resamples: 10_000, seed: 1 })).toBe(2 / 4096);
    expect(signFlipTest(twelve, { resamples: 10_000, seed: 2 })).toBe(2 / 4096);
  });

  it("is seeded Monte Carlo beyond that, at least 1 / (resamples + 1)", () => {
    const many = Array(40).fill(1) as number[];
    const p = signFlipTest(many, { resamples: 1000, seed: 1 });
    expect(p).toBe(1 / 1001);
    expect(signFlipTest(SYNTHETIC, { resamples: 2000, seed: 3 })).toBe(
      signFlipTest(SYNTHETIC, { resamples: 2000, seed: 3 }),
    );
  });
});
