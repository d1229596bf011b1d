import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
} from "node:crypto";
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { OracleError } from "@oracle/spec";

/** Where the installation's signing key lives unless ORACLE_SIGNING_KEY names another file. */
export function defaultKeyFile(env: NodeJS.ProcessEnv = process.env): string {
  if (env.ORACLE_SIGNING_KEY) return resolve(env.ORACLE_SIGNING_KEY);
  const config = env.XDG_CONFIG_HOME || join(homedir(), ".config");
  return join(config, "oracle", "signing-key.pem");
}

/** A public key and its id: the SHA-256 of its SubjectPublicKeyInfo (DER), in hex. */
export interface PublicKey {
  keyid: string;
  key: KeyObject;
}

export interface SigningKey extends PublicKey {
  privateKey: KeyObject;
  file: string;
}

export function keyIdOf(publicKey: KeyObject): string {
  return createHash("sha256")
    .update(publicKey.export({ type: "spki", format: "der" }))
    .digest("hex");
}

/** The public half as PEM, to hand to whoever checks this installation's results. */
export function publicKeyPem(key: PublicKey): string {
  return key.key.export({ type: "spki", format: "pem" }).toString();
}

/** KEY_INVALID unless `key` is ed25519, the only kind the oracle signs and verifies with. */
function requireEd25519(file: string, key: KeyObject, hint: string): void {
  if (key.asymmetricKeyType !== "ed25519")
    throw new OracleError(
      "KEY_INVALID",
      `${file}: a ${key.asymmetricKeyType} key; the oracle signs with ed25519`,
      {
        hint,
      },
    );
}

function fromPem(file: string, pem: string): SigningKey {
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(pem);
  } catch (error) {
    throw new OracleError("KEY_INVALID", `${file}: not a PEM private key (${(error as Error).message})`, {
      hint: "set ORACLE_SIGNING_KEY to the right key file (a new key makes every result signed with the old one untrusted)",
    });
  }
  requireEd25519(
    file,
    privateKey,
    "set ORACLE_SIGNING_KEY to an ed25519 key file, or to a new path (pnpm oracle-key makes it)",
  );
  const key = createPublicKey(privateKey);
  return { privateKey, key, keyid: keyIdOf(key), file };
}

/**
 * The installation's ed25519 signing key, made on first use (mode 0600, in a 0700 folder, outside
 * any repository). It is written whole to a private temporary file, then linked into place: a
 * second process making it at the same moment never reads a half-written file, and both end with
 * the one linked first.
 */
export function loadSigningKey(file: string = defaultKeyFile()): SigningKey {
  try {
    return fromPem(file, readFileSync(file, "utf8"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const { privateKey } = generateKeyPairSync("ed25519");
  const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(temporary, pem, { mode: 0o600, flag: "wx" });
    linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST")
      throw new OracleError(
        "KEY_INVALID",
        `cannot write the signing key ${file}: ${(error as Error).message}`,
        {
          hint: "set ORACLE_SIGNING_KEY to a file this user can write",
        },
      );
  } finally {
    rmSync(temporary, { force: true });
  }
  return fromPem(file, readFileSync(file, "utf8"));
}

/** A public key from a PEM file (a worker's or another installation's), for a trust list. */
export function loadPublicKey(file: string): PublicKey {
  let key: KeyObject;
  try {
    key = createPublicKey(readFileSync(file, "utf8"));
  } catch (error) {
    throw new OracleError("KEY_INVALID", `${file}: not a PEM public key (${(error as Error).message})`, {
      hint: "print one on the key's host with: pnpm oracle-key",
    });
  }
  requireEd25519(file, key, "print an ed25519 one on the key's host with: pnpm oracle-key");
  return { key, keyid: keyIdOf(key) };
}

/** The keys whose signatures count: this installation's own, and any given. */
export function trustList(own: PublicKey, files: readonly string[] = []): Map<string, PublicKey> {
  const keys = [own, ...files.map(loadPublicKey)];
  return new Map(keys.map((k) => [k.keyid, { key: k.key, keyid: k.keyid }]));
}
