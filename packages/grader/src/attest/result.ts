// A single grade's --result file, signed whole: an in-toto statement whose subject is the diff and
// whose predicate is the result itself (without its attestation), checked by oracle-verify.
import { createHash } from "node:crypto";
import {
  GRADE_RESULT_PREDICATE_TYPE,
  type GradeResult,
  GradeResultSchema,
  IN_TOTO_PAYLOAD_TYPE,
  NO_DIFF,
  STATEMENT_TYPE,
} from "@oracle/spec";
import { signEnvelope } from "./dsse.js";
import type { PublicKey, SigningKey } from "./keys.js";
import { canonicalJson, signedStatementDoubt } from "./statement.js";

function statementOf(result: GradeResult): string {
  const { attestation: _, ...bare } = result;
  const subject = result.diff
    ? { name: "diff", digest: { sha256: result.diff.sha256 } }
    : { name: NO_DIFF, digest: { sha256: createHash("sha256").update("").digest("hex") } };
  return canonicalJson({
    _type: STATEMENT_TYPE,
    subject: [subject],
    predicateType: GRADE_RESULT_PREDICATE_TYPE,
    predicate: bare,
  });
}

export function signResult(result: GradeResult, key: SigningKey): GradeResult {
  const { attestation: _, ...bare } = result;
  return { ...bare, attestation: signEnvelope(IN_TOTO_PAYLOAD_TYPE, Buffer.from(statementOf(bare)), key) };
}

/** Whether `value` is a grade result a trusted key signed as it reads. */
export function verifyResult(
  value: unknown,
  trusted: ReadonlyMap<string, PublicKey>,
): { ok: true; result: GradeResult; keyid: string } | { ok: false; why: string } {
  const parsed = GradeResultSchema.safeParse(value);
  if (!parsed.success) return { ok: false, why: "not a grade result" };
  const verified = signedStatementDoubt(
    parsed.data.attestation,
    trusted,
    statementOf(parsed.data),
    "the result says something other than its signed statement (changed after signing)",
  );
  return verified.ok ? { ok: true, result: parsed.data, keyid: verified.keyid } : verified;
}
