import { sign, verify } from "node:crypto";
import { type DsseEnvelope, DsseEnvelopeSchema } from "@oracle/spec";
import type { PublicKey, SigningKey } from "./keys.js";

/*
 * DSSE (Dead Simple Signing Envelope, v1.0.2): the signature covers PAE(payloadType, payload), so
 * neither the type nor the bytes can be swapped. node:crypto's ed25519 signs it; the envelope is a
 * few lines, so no library is needed for it (the in-toto and sigstore packages carry much more).
 */

/** The pre-authentication encoding: `DSSEv1 SP LEN(type) SP type SP LEN(body) SP body`. */
export function pae(payloadType: string, payload: Buffer): Buffer {
  const type = Buffer.from(payloadType, "utf8");
  return Buffer.concat([
    Buffer.from(`DSSEv1 ${type.length} `),
    type,
    Buffer.from(` ${payload.length} `),
    payload,
  ]);
}

export function signEnvelope(payloadType: string, payload: Buffer, key: SigningKey): DsseEnvelope {
  const sig = sign(null, pae(payloadType, payload), key.privateKey);
  return {
    payloadType,
    payload: payload.toString("base64"),
    signatures: [{ keyid: key.keyid, sig: sig.toString("base64") }],
  };
}

/** The payload and the key that signed it, or why the envelope does not verify against `trusted`. */
export function openEnvelope(
  envelope: unknown,
  trusted: ReadonlyMap<string, PublicKey>,
): { ok: true; payloadType: string; payload: Buffer; keyid: string } | { ok: false; why: string } {
  const parsed = DsseEnvelopeSchema.safeParse(envelope);
  if (!parsed.success) return { ok: false, why: "not a DSSE envelope" };
  const { payloadType, signatures } = parsed.data;
  const payload = Buffer.from(parsed.data.payload, "base64");
  let known = false;
  for (const { keyid, sig } of signatures) {
    const key = trusted.get(keyid);
    if (!key) continue;
    known = true;
    if (verify(null, pae(payloadType, payload), key.key, Buffer.from(sig, "base64")))
      return { ok: true, payloadType, payload, keyid };
  }
  return {
    ok: false,
    why: known
      ? "the signature does not verify (the statement was changed after signing)"
      : `signed by a key not in the trust list (${signatures.map((s) => s.keyid.slice(0, 12)).join(", ")})`,
  };
}
