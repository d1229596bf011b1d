// A sweep's health record of one task, signed: an in-toto statement whose subject is the task (its
// id, digest the content hash the sweep judged) and whose predicate is the record. A grade believes
// "validated" only from a record that verifies against the installation's key (task/health.ts).
import {
  HEALTH_RECORD_PREDICATE_TYPE,
  type HealthRecord,
  IN_TOTO_PAYLOAD_TYPE,
  STATEMENT_TYPE,
} from "@oracle/spec";
import { signEnvelope } from "./dsse.js";
import type { PublicKey, SigningKey } from "./keys.js";
import { canonicalJson, signedStatementDoubt } from "./statement.js";

function statementOf(task: string, record: HealthRecord): string {
  const { attestation: _, ...bare } = record;
  return canonicalJson({
    _type: STATEMENT_TYPE,
    subject: [{ name: `task:${task}`, digest: { sha256: bare.taskHash } }],
    predicateType: HEALTH_RECORD_PREDICATE_TYPE,
    predicate: { task, ...bare },
  });
}

export function signHealthRecord(task: string, record: HealthRecord, key: SigningKey): HealthRecord {
  const { attestation: _, ...bare } = record;
  return {
    ...bare,
    attestation: signEnvelope(IN_TOTO_PAYLOAD_TYPE, Buffer.from(statementOf(task, bare)), key),
  };
}

/** Null when `record` is task `task`'s record as a trusted key signed it, else why not. */
export function healthRecordDoubt(
  task: string,
  record: HealthRecord,
  trusted: ReadonlyMap<string, PublicKey>,
): string | null {
  const verified = signedStatementDoubt(
    record.attestation,
    trusted,
    statementOf(task, record),
    "it differs from the statement its signature covers: changed after signing, or another task's",
  );
  return verified.ok ? null : verified.why;
}
