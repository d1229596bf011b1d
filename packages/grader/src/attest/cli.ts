import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import {
  type Command,
  type CommandLineSpec,
  EXIT,
  parseCommandLine,
  printable,
  runCommand,
  write,
} from "@oracle/cli-kit";
import { OracleError, ResultLineSchema } from "@oracle/spec";
import { z } from "zod";
import { defaultKeyFile, loadSigningKey, type PublicKey, publicKeyPem, trustList } from "./keys.js";
import { verifyResult } from "./result.js";
import { type Verified, verifyLine } from "./statement.js";

export const VERIFY_HELP = `Usage: oracle-verify [--trust-key FILE]... FILE...
       pnpm verify-result FILE...

Checks signed results: every line of a batch's results.jsonl (or any file of such lines) must carry
a statement (in-toto Statement v1 in a DSSE envelope, ed25519) signed by a trusted key, and the
statement must say exactly what the line says. For each line it prints what the verdict was graded
on: the diff's SHA-256, the task folder's content hash, the image digest, the grader, the limit, and
the key that signed it; or why the line cannot be trusted (unsigned, an unknown key, a field changed
after signing). A single grade's --result file (oracle-grade TASK --result FILE) is checked whole:
its statement must sign the result exactly as it reads.

Options:
  --trust-key FILE   a public key (PEM) whose signatures count, e.g. a worker's (repeatable); this
                     installation's own key (ORACLE_SIGNING_KEY, or ${defaultKeyFile()}) always counts
  -h, --help         show this help

Exit codes: 0 every line verified, 1 some line did not, 2 bad arguments or an unreadable file, 3 a bug.`;

/** The command line: its flags and the options they fill (docs/reference.md lists each; a test holds it so). */
export const VERIFY_LINE = {
  command: "oracle-verify",
  flags: { "trust-key": { type: "string", multiple: true } },
  positionals: { field: "files", name: "FILE", multiple: true },
  schema: z.strictObject({
    trustKey: z.array(z.string().min(1)).default([]),
    files: z.array(z.string().min(1)).min(1, "name a results file"),
  }),
} satisfies CommandLineSpec<z.ZodType>;

interface VerifyOptions {
  files: string[];
  trustKeys: string[];
}

export function parseVerifyArgs(argv: readonly string[], cwd: string): VerifyOptions {
  const a = parseCommandLine(VERIFY_LINE, argv);
  return {
    files: a.files.map((f: string) => resolve(cwd, f)),
    trustKeys: a.trustKey.map((f: string) => resolve(cwd, f)),
  };
}

const short = (value: string | null | undefined) =>
  value ? value.replace(/^sha256:/, "").slice(0, 12) : "-";

/** One line of the account: what a verified line was graded on, or why it is not trusted. */
export function describeVerified(
  where: string,
  claimed: { id: string; task: string },
  verified: Verified,
): string {
  const who = printable(`${where} ${claimed.id} (${claimed.task})`, { oneLine: true });
  if (!verified.ok) return `UNVERIFIED ${who}: ${printable(verified.why, { oneLine: true })}`;
  const p = verified.statement.predicate;
  const what = p.verdict ? `${p.verdict} ${p.reason}` : `${p.outcome} ${p.error}`;
  const on = [
    `diff ${short(verified.statement.subject[0]?.digest.sha256)}`,
    `task ${short(p.taskHash)}`,
    `image ${short(p.imageDigest)}`,
    `grader ${p.graderVersion ?? "-"}`,
    `timeout ${p.timeoutSeconds ?? "-"} s`,
    `tests_hash ${short(p.testsHash)}`,
    `validation ${p.validation ?? "-"}`,
    `batch ${short(p.batch)}`,
  ].join(", ");
  return `ok ${who}: ${printable(what, { oneLine: true })}${p.cached ? " (cached)" : ""}; graded on ${on}; signed by ${verified.keyid.slice(0, 12)} at ${p.signedAt}`;
}

/** A single grade's --result file (one JSON object with its suites), verified whole; null for a results file. */
function singleResult(
  file: string,
  text: string,
  trusted: ReadonlyMap<string, PublicKey>,
): { lines: string[]; failed: number } | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null || !("suites" in value)) return null;
  const verified = verifyResult(value, trusted);
  const where = printable(file, { oneLine: true });
  if (!verified.ok)
    return { lines: [`UNVERIFIED ${where}: ${printable(verified.why, { oneLine: true })}`], failed: 1 };
  const r = verified.result;
  const what = `${r.verdict} ${r.reason}; task ${r.task}, ${r.mode}, diff ${short(r.diff?.sha256)}, image ${short(r.image.digest)}, grader ${r.graderVersion}, tests_hash ${short(r.testsHash)}`;
  return {
    lines: [`ok ${where}: ${printable(what, { oneLine: true })}; signed by ${verified.keyid.slice(0, 12)}`],
    failed: 0,
  };
}

/** Verifies every line of `file`; returns the account's lines and how many did not verify. */
export async function verifyFile(
  file: string,
  trusted: ReadonlyMap<string, PublicKey>,
): Promise<{ lines: string[]; failed: number }> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new OracleError(
      "FILE_INVALID",
      `${file}: cannot read it (${(error as NodeJS.ErrnoException).code})`,
    );
  }
  const whole = singleResult(file, text, trusted);
  if (whole) return whole;
  const lines: string[] = [];
  let failed = 0;
  const rows = text.split("\n");
  const seenAt = new Map<string, number>();
  for (const [index, raw] of rows.entries()) {
    if (raw.trim() === "") continue;
    const where = `${file}:${index + 1}`;
    let parsed: ReturnType<typeof ResultLineSchema.safeParse>;
    try {
      parsed = ResultLineSchema.safeParse(JSON.parse(raw));
    } catch {
      parsed = { success: false } as ReturnType<typeof ResultLineSchema.safeParse>;
    }
    if (!parsed.success) {
      failed += 1;
      lines.push(`UNVERIFIED ${printable(where)}: not a result line`);
      continue;
    }
    const first = seenAt.get(parsed.data.id);
    const verified: Verified =
      first === undefined
        ? verifyLine(parsed.data, trusted)
        : { ok: false, why: `the id was already given on line ${first} (one line per prediction)` };
    seenAt.set(parsed.data.id, first ?? index + 1);
    if (!verified.ok) failed += 1;
    lines.push(describeVerified(where, parsed.data, verified));
  }
  if (lines.length === 0) throw new OracleError("FILE_INVALID", `${file}: no result lines`);
  return { lines, failed };
}

export const verifyCommand: Command<VerifyOptions> = {
  name: "oracle-verify",
  pnpmScript: "verify-result",
  help: VERIFY_HELP,
  parse: (argv, at) => parseVerifyArgs(argv, at.cwd),
  run: async ({ files, trustKeys }) => {
    const trusted = trustList(loadSigningKey(), trustKeys);
    let failed = 0;
    for (const file of files) {
      const account = await verifyFile(file, trusted);
      failed += account.failed;
      await write(process.stdout, `${account.lines.join("\n")}\n`);
    }
    if (failed > 0) await write(process.stderr, `${failed} line(s) not verified\n`);
    return failed === 0 ? EXIT.OK : EXIT.FAIL;
  },
};

export const KEY_HELP = `Usage: oracle-key
       pnpm oracle-key

Prints this installation's public key (PEM) on stdout, and its id and file on stderr; makes the key
first if there is none. The key signs every result line and queue answer this installation writes;
give the public half to whoever checks them (oracle-verify --trust-key FILE, oracle-grade --batch
--queue ... --trust-key FILE for a worker on another host). The private half stays in its file
(mode 0600): ORACLE_SIGNING_KEY, or ${defaultKeyFile()}.

Options:
  -h, --help   show this help

Exit codes: 0 printed, 2 a key file that is not an ed25519 PEM key, 3 a bug.`;

/** oracle-key's command line: no flag but --help. */
export const KEY_LINE = {
  command: "oracle-key",
  flags: {},
  schema: z.strictObject({}),
} satisfies CommandLineSpec<z.ZodType>;

export const keyCommand: Command<Record<string, never>> = {
  name: "oracle-key",
  pnpmScript: "oracle-key",
  help: KEY_HELP,
  parse: (argv) => {
    parseCommandLine(KEY_LINE, argv);
    return {};
  },
  run: async () => {
    const key = loadSigningKey();
    await write(process.stdout, publicKeyPem(key));
    await write(process.stderr, `key ${key.keyid} in ${key.file}\n`);
    return EXIT.OK;
  },
};

export function verifyMain(argv: readonly string[]): Promise<number> {
  return runCommand(verifyCommand, argv);
}

export function keyMain(argv: readonly string[]): Promise<number> {
  return runCommand(keyCommand, argv);
}
