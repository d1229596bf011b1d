import { randomInt } from "node:crypto";

/** The one source of randomness of a plan (names of the pair, their values): injected, so a plan is reproducible in a unit test. */
export interface Random {
  /** An integer in [min, max). */
  int(min: number, max: number): number;
}

/** Draws from node:crypto (production). */
export const cryptoRandom: Random = { int: (min, max) => randomInt(min, max) };

/** A seeded generator (mulberry32), for tests and recorded plans. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return {
    int(min, max) {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      const unit = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
      return min + Math.floor(unit * (max - min));
    },
  };
}
