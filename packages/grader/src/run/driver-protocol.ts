import type { SuiteName } from "../reports/junit.js";

/**
 * The driver's protocol, defined once: what the driver of a suite's container prints on its stdout
 * and stderr, what it reads on its stdin, and its exit codes. The script generator (driver-script.ts,
 * prep.ts) writes every line from these definitions and the parser (driver-output.ts) reads them back
 * with the same ones; the contract test (driver-contract.test.ts) runs the one into the other.
 *
 * stdin: `<bytes>\n<script>` ({@link scriptInput}), then for a gated suite the line {@link GO_LINE}.
 * stdout, in order: `oracle:nonce <hex>`; the prep's output as sized blocks and its exit code; the
 * suite's own output from `oracle:suite S` to the nonce's end marker and the suite's exit code; then
 * the kill rounds, the cgroup's OOM count, the report (a sized block or why there is none), the
 * seals' records when the suite has seals (the same), and `oracle:done`. Each driver line comes once. `oracle:unsafe …` may come at any point outside the
 * suite's output: the driver stopped because something it relies on did not hold.
 * stderr: the suite's stderr, up to the nonce's end marker; nothing of the driver's own.
 */

/** The prefix of every line the driver prints for the grader. */
export const PREFIX = "oracle:";

/** The kinds of driver line: `oracle:<kind> [<suite>] [<arguments>]`. */
export const LINE = {
  /** The nonce the end markers carry (first line). */
  nonce: "nonce",
  /** A check of the driver's own failed: what did not hold. */
  unsafe: "unsafe",
  /** The boot line could not make the driver's execute-only sh. */
  noDriverSh: "no-driver-sh",
  /** A sized block: the prep's stdout, its stderr. */
  prepOut: "prep-out",
  prepErr: "prep-err",
  /** The prep's exit code (and `step-dir` when the driver could not make the prep's folder). */
  prepExit: "prep-exit",
  /** The suite starts: every byte until the end marker is the suite's. */
  suite: "suite",
  /** Kill-loop rounds and the processes left after it. */
  kill: "kill",
  /** The cgroup's oom_kill count after the suite. */
  oom: "oom",
  /** The report: `ok <size>` and a sized block, or why it was not read ({@link REPORT}). */
  report: "report",
  /** The seals' records ($ORACLE_SEALS), read like the report: `ok <size>` and a block, or why not. */
  seals: "seals",
  /** The driver finished. */
  done: "done",
} as const;
export type LineKind = (typeof LINE)[keyof typeof LINE];

/** The second word of a `prep-exit` line whose prep never ran: the driver could not make its folder. */
export const PREP_STEP_DIR = "step-dir";

/** What an `oracle:report` line says of the suite's report file. */
export const REPORT = {
  ok: "ok",
  missing: "missing",
  notRegular: "not-regular",
  unreadable: "unreadable",
  tooLarge: "too-large",
} as const;
export type ReportState = (typeof REPORT)[keyof typeof REPORT];
export const REPORT_STATES: ReadonlySet<string> = new Set(Object.values(REPORT));

/** A driver line as printed (`%s` and other printf conversions pass through as arguments). */
export const driverLine = (kind: LineKind | "%s", ...args: string[]): string =>
  [`${PREFIX}${kind}`, ...args].join(" ");

/** Bytes of /dev/urandom the nonce is drawn from; it is printed as lowercase hex. */
export const NONCE_BYTES = 24;
export const NONCE = new RegExp(`^[0-9a-f]{${NONCE_BYTES * 2}}$`);

/** The end of a suite's output on a stream, after its nonce; on stdout the suite's exit code follows. */
export const endMarkerText = (nonce: string, stream: "stdout" | "stderr"): string =>
  `\n${PREFIX}${nonce}:end${stream === "stdout" ? " " : "\n"}`;

export const endMarker = (nonce: string, stream: "stdout" | "stderr"): Buffer =>
  Buffer.from(endMarkerText(nonce, stream));

/** The word that lets a gated driver (prepared while the suite before it ran) start its suite. */
export const GO = "run";
export const GO_LINE = `${GO}\n`;

/** How the grader hands a driver its script on stdin: the byte count, a newline, the script. */
export const scriptInput = (script: string): Buffer => {
  const bytes = Buffer.from(script, "utf8");
  return Buffer.concat([Buffer.from(`${bytes.length}\n`), bytes]);
};

/** Exit codes of the prep script; each maps to a reason (prep.ts: prepFailure). */
export const PREP_EXIT = {
  /** The step's folder or the report folder cannot be made. */
  stepDir: 20,
  checkout: 10,
  applyCheck: 11,
  apply: 12,
  list: 13,
  reset: 14,
  hidden: 15,
  /** The diff shadows the test runner (runner-guard.ts): DIFF_SHADOWS_RUNNER. */
  shadow: 16,
  /** The runner guard itself could not run. */
  guard: 17,
  /** The image's home seed cannot be copied into HOME. */
  home: 18,
} as const;

/** The driver's exit codes for its own failures (a failed prep exits with the prep's code). */
export const DRIVER_EXIT = { unsafe: 94, noDriverSh: 95, survivors: 96, io: 97, noCheckout: 98 } as const;

/** What the prep prints on stderr before each reason it fails with. */
export const PREP_FAIL_PREFIX = "oracle-prep: ";

/** The line the prep's `fail` adds to its stderr for the cgroup's OOM count (prep.ts: prepFailure). */
export const OOM_KILL_LINE = /^oom_kill (\d+)$/m;

/** The suites, in the words the driver prints. */
export const SUITES: ReadonlySet<string> = new Set<SuiteName>(["existing", "hidden"]);
