// manifest.json: the predictions a batch grades, signed. Lines of results.jsonl are signed one by one,
// so deleting one breaks no signature; the manifest is what says it is missing.
import { BATCH_MANIFEST_PAYLOAD_TYPE, type BatchManifest, BatchManifestSchema } from "@oracle/spec";
import { openEnvelope, signEnvelope } from "./dsse.js";
import type { PublicKey, SigningKey } from "./keys.js";
import { canonicalJson } from "./statement.js";

export const MANIFEST_FILE = "manifest.json";

export function signManifest(fields: Omit<BatchManifest, "attestation">, key: SigningKey): BatchManifest {
  const payload = Buffer.from(canonicalJson(fields));
  return { ...fields, attestation: signEnvelope(BATCH_MANIFEST_PAYLOAD_TYPE, payload, key) };
}

/** The manifest, when `value` is one a trusted key signed as it reads; else why not. */
export function verifyManifest(
  value: unknown,
  trusted: ReadonlyMap<string, PublicKey>,
): { ok: true; manifest: BatchManifest; keyid: string } | { ok: false; why: string } {
  const parsed = BatchManifestSchema.safeParse(value);
  if (!parsed.success) return { ok: false, why: "not a batch manifest" };
  const opened = openEnvelope(parsed.data.attestation, trusted);
  if (!opened.ok) return opened;
  if (opened.payloadType !== BATCH_MANIFEST_PAYLOAD_TYPE)
    return { ok: false, why: `payload type ${opened.payloadType}, not a batch manifest` };
  const { attestation: _, ...fields } = parsed.data;
  if (opened.payload.toString("utf8") !== canonicalJson(fields))
    return {
      ok: false,
      why: "the manifest says something other than what was signed (changed after signing)",
    };
  return { ok: true, manifest: parsed.data, keyid: opened.keyid };
}
