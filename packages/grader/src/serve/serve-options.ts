import { resolve } from "node:path";
import { type CommandLineSpec, findRoot, parseCommandLine } from "@oracle/cli-kit";
import { z } from "zod";

export const SERVE_HELP = `Usage: oracle-grade --serve [--root DIR]
       pnpm grade --serve [--root DIR]

A long-running local grader for one root: it listens on <root>/.oracle/serve.sock (mode 0600, this
user's), keeps for each task it graded the next grade's two suite containers created and started
(each driver waiting for its script), and grades what oracle-grade TASK ... sends it. A grade
through it prints, writes and exits exactly as in process; each container still serves one suite of
one grade, made from the task's current image and plan (a changed task or image is made again).
oracle-grade reaches it when it is of the same build and environment and serves the same root;
otherwise, and when none runs, oracle-grade grades in its own process as before.

Options:
  --serve      run the local grader (until SIGINT or SIGTERM)
  --root DIR   folder holding tasks/ and images/ (default: nearest folder upwards with either)
  -h, --help   show this help

Exit codes: 2 the socket path is not this user's, or another local grader serves the root; 3 the
grader could not listen; 130/143 stopped by SIGINT/SIGTERM (its containers and socket removed; after
a SIGKILL the next grade's start removes the containers and the next --serve the socket).`;

export interface ServeCliOptions {
  root: string;
}

/** The command line: its flags (docs/reference.md lists each; a test holds it so). */
export const SERVE_LINE = {
  command: "oracle-grade --serve",
  flags: {
    serve: { type: "boolean" },
    root: { type: "string" },
  },
  schema: z.strictObject({
    serve: z.literal(true),
    root: z.string().min(1).optional(),
  }),
} satisfies CommandLineSpec<z.ZodType>;

/** Whether argv asks for the local grader. */
export function isServeInvocation(argv: readonly string[]): boolean {
  return argv.some((arg) => arg === "--serve");
}

export function parseServeArgs(argv: readonly string[], cwd: string): ServeCliOptions {
  const a = parseCommandLine(SERVE_LINE, argv);
  return { root: a.root ? resolve(cwd, a.root) : findRoot(cwd) };
}
