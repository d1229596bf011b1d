// The decision as a result of its own: an in-toto statement in a DSSE envelope, signed with the
// installation's key, whose subject is both results files and whose predicate is the whole report.
import {
  canonicalJson,
  type PublicKey,
  type SigningKey,
  signEnvelope,
  signedStatementDoubt,
} from "@oracle/grader";
import { GATE_PREDICATE_TYPE, type GateReport, IN_TOTO_PAYLOAD_TYPE, STATEMENT_TYPE } from "@oracle/spec";

function statementOf(report: GateReport) {
  const { attestation: _, ...bare } = report;
  return {
    _type: STATEMENT_TYPE,
    subject: [
      { name: "candidate results.jsonl", digest: { sha256: report.candidate.resultsSha256 } },
      { name: "incumbent results.jsonl", digest: { sha256: report.incumbent.resultsSha256 } },
    ],
    predicateType: GATE_PREDICATE_TYPE,
    predicate: JSON.parse(canonicalJson(bare)) as unknown,
  };
}

export function signDecision(report: GateReport, key: SigningKey): GateReport {
  const { attestation: _, ...bare } = report;
  const payload = Buffer.from(canonicalJson(statementOf(bare)));
  return { ...bare, attestation: signEnvelope(IN_TOTO_PAYLOAD_TYPE, payload, key) };
}

/** Whether the report carries a signature of a trusted key over exactly what it says. */
export function verifyDecision(
  report: GateReport,
  trusted: ReadonlyMap<string, PublicKey>,
): { ok: true; keyid: string } | { ok: false; why: string } {
  return signedStatementDoubt(
    report.attestation,
    trusted,
    canonicalJson(statementOf(report)),
    "the report says something other than its signed statement (changed after signing)",
  );
}
