import { z } from "zod";

/** A command-line value that must be a whole number within [min, max], parsed from its text. */
export function wholeNumberArg(min: number, max: number) {
  return z
    .string()
    .regex(/^\d+$/, "must be a whole number")
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));
}
