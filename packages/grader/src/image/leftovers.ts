// The lease and the leftover rule live in @oracle/engine (labels.ts, lease.ts, leftovers.ts); the
// run files import them from here.
export { gradeLabels, leaseDeadline, removeLeftovers } from "@oracle/engine";
