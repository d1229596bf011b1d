// The gate's statistics, pure and exact where they can be: the exact (conditional) McNemar test and
// Tango's score interval for one sample per task, a seeded paired bootstrap over tasks for k
// samples, and the normal quantile the plan needs. Pinned by stats.test.ts against published values.

/** ln(n!) for every n up to the largest asked for, kept between calls (sums of logs: exact to ~1e-13). */
const LOG_FACTORIAL: number[] = [0];

function logFactorial(n: number): number {
  for (let i = LOG_FACTORIAL.length; i <= n; i++) LOG_FACTORIAL[i] = LOG_FACTORIAL[i - 1]! + Math.log(i);
  return LOG_FACTORIAL[n]!;
}

/** ln P(X = k) for X ~ Binomial(n, p). */
function logBinomialPmf(k: number, n: number, p: number): number {
  if (p === 0) return k === 0 ? 0 : Number.NEGATIVE_INFINITY;
  if (p === 1) return k === n ? 0 : Number.NEGATIVE_INFINITY;
  return logFactorial(n) - logFactorial(k) - logFactorial(n - k) + k * Math.log(p) + (n - k) * Math.log1p(-p);
}

/** P(X ≤ k) for X ~ Binomial(n, p), summed in log space (no underflow for n in the tens of thousands). */
export function binomialCdf(k: number, n: number, p: number): number {
  if (k < 0) return 0;
  if (k >= n) return 1;
  const terms: number[] = [];
  for (let i = 0; i <= k; i++) terms.push(logBinomialPmf(i, n, p));
  const top = Math.max(...terms);
  if (top === Number.NEGATIVE_INFINITY) return 0;
  const sum = terms.reduce((acc, t) => acc + Math.exp(t - top), 0);
  return Math.min(1, Math.exp(top) * sum);
}

/**
 * The exact (conditional) McNemar test: under "neither model is better", each of the `gains + losses`
 * discordant tasks is a gain with probability 1/2. Two-sided: twice the smaller tail, at most 1.
 */
export function mcnemarExact(gains: number, losses: number): number {
  const n = gains + losses;
  if (n === 0) return 1;
  return Math.min(1, 2 * binomialCdf(Math.min(gains, losses), n, 0.5));
}

/**
 * The standard normal quantile (Acklam's rational approximation, relative error below 1.2e-9), for
 * the plan's z values and the score interval.
 */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`normalQuantile: p must be in (0, 1), got ${p}`);
  const a = [
    -39.69683028665376, 220.9460984245205, -275.928510446969, 138.357751867269, -30.66479806614716,
    2.506628277459239,
  ];
  const b = [
    -54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572,
  ];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (
      (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) /
      ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1)
    );
  }
  if (p > 1 - low) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) /
    (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
  );
}

/** The standard normal CDF (Φ), through erfc (W. J. Cody's rational approximations via Numerical Recipes' erfc, |error| < 1.2e-7). */
export function normalCdf(x: number): number {
  const z = Math.abs(x) / Math.SQRT2;
  const t = 1 / (1 + 0.5 * z);
  const erfc =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t *
                      (-0.18628806 +
                        t *
                          (0.27886807 +
                            t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? 1 - erfc / 2 : erfc / 2;
}

export interface Interval {
  lower: number;
  upper: number;
}

/**
 * Tango's score interval (1998) for the difference of two paired proportions, Δ = (gains − losses)/n
 * over `n` tasks: the Δ0 whose score statistic stays within ±z. At Δ0 = 0 the statistic is
 * McNemar's; unlike the Wald interval it never collapses to a point (no discordant task still gives
 * an interval around 0) and stays inside [-1, 1].
 */
export function tangoInterval(gains: number, losses: number, n: number, alpha: number): Interval {
  if (n <= 0) return { lower: -1, upper: 1 };
  const z = normalQuantile(1 - alpha / 2);
  const score = (delta: number): number => {
    // The restricted maximum-likelihood estimate of P(incumbent passes, candidate fails) under Δ = delta.
    const A = 2 * n;
    const B = -gains - losses + (2 * n - gains + losses) * delta;
    const C = -losses * delta * (1 - delta);
    const q = (Math.sqrt(Math.max(0, B * B - 4 * A * C)) - B) / (2 * A);
    const variance = n * (2 * q + delta * (1 - delta));
    const numerator = gains - losses - n * delta;
    if (variance <= 0)
      return numerator === 0 ? 0 : numerator > 0 ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
    return numerator / Math.sqrt(variance);
  };
  // The score falls as delta rises: bisect for score = +z (lower end) and score = -z (upper end).
  const solve = (target: number): number => {
    let lo = -1;
    let hi = 1;
    for (let i = 0; i < 200; i++) {
      const mid = (lo + hi) / 2;
      if (score(mid) > target) lo = mid;
      else hi = mid;
    }
    return (lo + hi) / 2;
  };
  return { lower: Math.max(-1, solve(z)), upper: Math.min(1, solve(-z)) };
}

/**
 * A small, fast, seedable generator (mulberry32): the same seed gives the same bootstrap on every
 * machine and Node version, which Math.random cannot.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface BootstrapResult extends Interval {
  /** The observed mean difference. */
  effect: number;
  /** Share of resamples whose mean difference is at or below 0, and at or above 0. */
  atOrBelowZero: number;
  atOrAboveZero: number;
}

/**
 * The paired percentile bootstrap over tasks: resamples the per-task differences (candidate's pass
 * share minus incumbent's) with replacement `resamples` times, and takes the α/2 and 1 − α/2
 * quantiles of the mean. Seeded: the same input and seed give the same interval, bit for bit.
 */
export function pairedBootstrap(
  differences: readonly number[],
  options: { resamples: number; seed: number; alpha: number },
): BootstrapResult {
  const n = differences.length;
  if (n === 0) throw new RangeError("pairedBootstrap: no tasks");
  const effect = differences.reduce((a, b) => a + b, 0) / n;
  const random = seededRandom(options.seed);
  const means = new Float64Array(options.resamples);
  let below = 0;
  let above = 0;
  for (let r = 0; r < options.resamples; r++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += differences[Math.floor(random() * n)]!;
    const mean = sum / n;
    means[r] = mean;
    if (mean <= 1e-12) below += 1;
    if (mean >= -1e-12) above += 1;
  }
  means.sort();
  // The α/2 quantile is the k-th smallest of R resamples, k = ceil(R·α/2) (index k − 1), and the
  // 1 − α/2 quantile the k-th largest: the lower end is above a bound only when fewer than k, less
  // than α/2 of the resamples, are at or below it.
  const k = Math.max(1, Math.ceil((options.resamples * options.alpha) / 2));
  return {
    effect,
    lower: means[k - 1]!,
    upper: means[options.resamples - k]!,
    atOrBelowZero: below / options.resamples,
    atOrAboveZero: above / options.resamples,
  };
}

/**
 * The paired sign-flip (randomisation) test over tasks: under "the two models are alike on every
 * task", each task's difference is as likely negative as positive, so the observed mean is compared
 * with the means of `resamples` random sign assignments (all 2^n of them, exactly, when that is no
 * more). Two-sided, (1 + hits) / (1 + resamples): valid on few tasks, where the percentile bootstrap
 * promotes too often.
 */
export function signFlipTest(
  differences: readonly number[],
  options: { resamples: number; seed: number },
): number {
  const n = differences.length;
  if (n === 0) return 1;
  const observed = Math.abs(differences.reduce((a, b) => a + b, 0));
  if (2 ** n <= options.resamples) {
    // Few tasks: every one of the 2^n sign assignments, an exact p (the observed one among them).
    let hits = 0;
    for (let mask = 0; mask < 2 ** n; mask++) {
      let sum = 0;
      for (let i = 0; i < n; i++) sum += mask & (1 << i) ? -differences[i]! : differences[i]!;
      if (Math.abs(sum) >= observed - 1e-9) hits += 1;
    }
    return hits / 2 ** n;
  }
  const random = seededRandom(options.seed ^ 0x5bd1e995);
  let hits = 0;
  for (let r = 0; r < options.resamples; r++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += random() < 0.5 ? differences[i]! : -differences[i]!;
    if (Math.abs(sum) >= observed - 1e-9) hits += 1;
  }
  return (1 + hits) / (1 + options.resamples);
}
