import { createHash } from "node:crypto";
import {
  type DsseEnvelope,
  GRADE_PREDICATE_TYPE,
  type GradePredicate,
  type GradeStatement,
  GradeStatementSchema,
  IN_TOTO_PAYLOAD_TYPE,
  NO_DIFF,
  type ResultLine,
  STATEMENT_TYPE,
} from "@oracle/spec";
import { openEnvelope, signEnvelope } from "./dsse.js";
import type { PublicKey, SigningKey } from "./keys.js";

const EMPTY_SHA256 = createHash("sha256").update("").digest("hex");

/**
 * Where a signed line came from beyond the line itself: the batch, the queue job it answers, that
 * job's data and the whole result returned with it (as digests). When verifying, a field left
 * undefined is not compared (oracle-verify knows no batch); the collector and resume give them all.
 */
export interface LineContext {
  job?: string | null;
  jobDigest?: string | null;
  resultDigest?: string | null;
  batch?: string | null;
}

const CONTEXT_FIELDS = ["job", "jobDigest", "resultDigest", "batch"] as const;

/** JSON with keys sorted at every level and undefined left out: the same bytes for the same data. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value))
    return `[${value.map((v) => (v === undefined ? "null" : canonicalJson(v))).join(",")}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((k) => record[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`).join(",")}}`;
}

/** SHA-256 (hex) of `value`'s canonical JSON, or null for null/undefined. */
export function digestOf(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return createHash("sha256").update(canonicalJson(value)).digest("hex");
}

/** The predicate of a line: every field a verdict is judged on, and the verdict. */
export function predicateOf(line: ResultLine, context: LineContext = {}): Omit<GradePredicate, "signedAt"> {
  return {
    prediction: line.id,
    task: line.task,
    outcome: line.outcome,
    verdict: line.verdict,
    reason: line.reason,
    error: line.error,
    testsHash: line.testsHash,
    taskHash: line.taskHash ?? null,
    imageDigest: line.imageDigest,
    graderVersion: line.graderVersion ?? null,
    timeoutSeconds: line.timeoutSeconds ?? null,
    cached: line.cached,
    validation: line.validation ?? null,
    job: context.job ?? null,
    jobDigest: context.jobDigest ?? null,
    resultDigest: context.resultDigest ?? null,
    batch: context.batch ?? null,
    worker: line.worker,
    seconds: line.seconds,
    message: line.message,
    log: line.log,
    attempts: line.attempts,
  };
}

function subjectOf(diffSha256: string | null): GradeStatement["subject"] {
  return [
    diffSha256 === null
      ? { name: NO_DIFF, digest: { sha256: EMPTY_SHA256 } }
      : { name: "diff", digest: { sha256: diffSha256 } },
  ];
}

/** The line's statement, signed: in-toto Statement v1 in a DSSE envelope. */
export function attestLine(line: ResultLine, key: SigningKey, context: LineContext = {}): DsseEnvelope {
  const statement: GradeStatement = {
    _type: STATEMENT_TYPE,
    subject: subjectOf(line.diffSha256),
    predicateType: GRADE_PREDICATE_TYPE,
    predicate: { ...predicateOf(line, context), signedAt: new Date().toISOString() },
  };
  return signEnvelope(IN_TOTO_PAYLOAD_TYPE, Buffer.from(JSON.stringify(statement)), key);
}

/** The parsed payload of an in-toto statement a trusted key signed, with that key; else why not. */
function openInToto(
  envelope: unknown,
  trusted: ReadonlyMap<string, PublicKey>,
): { ok: true; keyid: string; json: unknown } | { ok: false; why: string } {
  if (envelope === undefined || envelope === null) return { ok: false, why: "not signed" };
  const opened = openEnvelope(envelope, trusted);
  if (!opened.ok) return opened;
  if (opened.payloadType !== IN_TOTO_PAYLOAD_TYPE)
    return { ok: false, why: `payload type ${opened.payloadType}, not an in-toto statement` };
  try {
    return { ok: true, keyid: opened.keyid, json: JSON.parse(opened.payload.toString("utf8")) };
  } catch {
    return { ok: false, why: "the payload is not JSON" };
  }
}

/**
 * The key that signed `envelope`, when it is an in-toto statement a trusted key signed whose canonical
 * JSON is `expected` (the statement rebuilt from what the document says today); else why not, with
 * `mismatch` when the statement differs.
 */
export function signedStatementDoubt(
  envelope: unknown,
  trusted: ReadonlyMap<string, PublicKey>,
  expected: string,
  mismatch: string,
): { ok: true; keyid: string } | { ok: false; why: string } {
  const opened = openInToto(envelope, trusted);
  if (!opened.ok) return opened;
  return canonicalJson(opened.json) === expected
    ? { ok: true, keyid: opened.keyid }
    : { ok: false, why: mismatch };
}

export type Verified = { ok: true; keyid: string; statement: GradeStatement } | { ok: false; why: string };

/** The signed statement of an envelope, or why it is not one a trusted key signed. */
export function openStatement(envelope: unknown, trusted: ReadonlyMap<string, PublicKey>): Verified {
  const opened = openInToto(envelope, trusted);
  if (!opened.ok) return opened;
  const statement = GradeStatementSchema.safeParse(opened.json);
  return statement.success
    ? { ok: true, keyid: opened.keyid, statement: statement.data }
    : { ok: false, why: "the payload is not a grade statement" };
}

/** The fields of `claimed` that differ from what the statement signs, as `field (signed a, claimed b)`. */
export function differences(
  statement: GradeStatement,
  line: ResultLine,
  context: LineContext = {},
): string[] {
  const signed = statement.predicate as Record<string, unknown>;
  const claimed = predicateOf(line, context) as Record<string, unknown>;
  for (const field of CONTEXT_FIELDS) if (context[field] === undefined) delete claimed[field];
  const out = Object.keys(claimed)
    .filter((k) => JSON.stringify(signed[k]) !== JSON.stringify(claimed[k]))
    .map((k) => `${k} (signed ${JSON.stringify(signed[k])}, claimed ${JSON.stringify(claimed[k])})`);
  const subject = subjectOf(line.diffSha256)[0]!;
  const signedSubject = statement.subject[0]!;
  if (signedSubject.digest.sha256 !== subject.digest.sha256 || signedSubject.name !== subject.name)
    out.unshift(
      `the diff (signed ${signedSubject.digest.sha256.slice(0, 12)}, claimed ${subject.digest.sha256.slice(0, 12)})`,
    );
  return out;
}

/**
 * Whether `line` carries a statement signed by a trusted key that says exactly what the line says
 * (and, for a queue answer, that names the job). An edited verdict, a statement of another line or
 * job, and an unknown key all fail, with the reason.
 */
export function verifyLine(
  line: ResultLine,
  trusted: ReadonlyMap<string, PublicKey>,
  context: LineContext = {},
  envelope: unknown = line.attestation,
): Verified {
  const opened = openStatement(envelope, trusted);
  if (!opened.ok) return opened;
  const wrong = differences(opened.statement, line, context);
  return wrong.length === 0
    ? opened
    : { ok: false, why: `the statement does not match: ${wrong.join("; ")}` };
}

/** The line with its statement, signed by `key`. */
export function signedLine(line: ResultLine, key: SigningKey, context: LineContext = {}): ResultLine {
  const { attestation: _old, ...bare } = line;
  return { ...bare, attestation: attestLine(bare, key, context) };
}
