import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type GradeResult, GradeResultSchema, type ResultLine } from "@oracle/spec";
import { describe, expect, it } from "vitest";
import { verifyFile } from "./cli.js";
import { openEnvelope, pae, signEnvelope } from "./dsse.js";
import { defaultKeyFile, loadPublicKey, loadSigningKey, publicKeyPem, trustList } from "./keys.js";
import { signResult, verifyResult } from "./result.js";
import { attestLine, signedLine, verifyLine } from "./statement.js";

const scratch = () => mkdtempSync(join(tmpdir(), "oracle-attest-"));

const line = (over: Partial<ResultLine> = {}): ResultLine => ({
  id: "p1",
  task: "calc-node",
  outcome: "graded",
  verdict: "FAIL",
  reason: "TESTS_FAILED",
  error: null,
  message: "hidden suite: 1 failed",
  testsHash: "a".repeat(64),
  log: "/logs/x.jsonl",
  seconds: 2.5,
  cached: false,
  attempts: 1,
  diffSha256: "d".repeat(64),
  imageDigest: "sha256:1",
  taskHash: "t".repeat(64),
  graderVersion: "0.1.0",
  timeoutSeconds: 60,
  worker: "host:1",
  ...over,
});

describe("DSSE", () => {
  it("encodes PAE as the specification's example does", () => {
    expect(pae("http://example.com/HelloWorld", Buffer.from("hello world")).toString()).toBe(
      "DSSEv1 29 http://example.com/HelloWorld 11 hello world",
    );
  });

  it("verifies only with a trusted key, and not after the payload or its type changed", () => {
    const key = loadSigningKey(join(scratch(), "k.pem"));
    const trusted = trustList(key);
    const envelope = signEnvelope("t", Buffer.from("body"), key);
    expect(openEnvelope(envelope, trusted)).toMatchObject({ ok: true, keyid: key.keyid });
    const other = loadSigningKey(join(scratch(), "k.pem"));
    expect(openEnvelope(envelope, trustList(other))).toMatchObject({
      ok: false,
      why: /not in the trust list/,
    });
    const changed = { ...envelope, payload: Buffer.from("bodx").toString("base64") };
    expect(openEnvelope(changed, trusted)).toMatchObject({ ok: false, why: /does not verify/ });
    expect(openEnvelope({ ...envelope, payloadType: "u" }, trusted)).toMatchObject({ ok: false });
    expect(openEnvelope({ nope: 1 }, trusted)).toMatchObject({ ok: false, why: "not a DSSE envelope" });
  });
});

describe("the signing key", () => {
  it("is made on first use, private to its user, and the same key afterwards", () => {
    const file = join(scratch(), "sub", "signing-key.pem");
    const made = loadSigningKey(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadSigningKey(file).keyid).toBe(made.keyid);
    expect(made.keyid).toMatch(/^[0-9a-f]{64}$/);
    const pub = join(scratch(), "pub.pem");
    writeFileSync(pub, publicKeyPem(made));
    expect(loadPublicKey(pub).keyid).toBe(made.keyid);
  });

  it("lives outside the repository unless ORACLE_SIGNING_KEY says where", () => {
    expect(defaultKeyFile({ HOME: "/h", XDG_CONFIG_HOME: "/c" })).toBe("/c/oracle/signing-key.pem");
    expect(defaultKeyFile({ ORACLE_SIGNING_KEY: "/k.pem" })).toBe("/k.pem");
  });

  it("refuses a file that is not an ed25519 PEM key, with a hint", () => {
    const dir = scratch();
    writeFileSync(join(dir, "junk.pem"), "junk");
    expect(() => loadSigningKey(join(dir, "junk.pem"))).toThrow(/not a PEM private key/);
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 });
    writeFileSync(join(dir, "rsa.pem"), rsa.privateKey.export({ type: "pkcs8", format: "pem" }));
    expect(() => loadSigningKey(join(dir, "rsa.pem"))).toThrow(/a rsa key; the oracle signs with ed25519/);
    expect(readFileSync(join(dir, "junk.pem"), "utf8")).toBe("junk");
  });
});

describe("signed lines", () => {
  const key = loadSigningKey(join(scratch(), "k.pem"));
  const trusted = trustList(key);

  it("verify as signed, and name the field that was edited after signing", () => {
    const signed = signedLine(line(), key);
    expect(verifyLine(signed, trusted)).toMatchObject({ ok: true, keyid: key.keyid });
    const forged = { ...signed, verdict: "PASS" as const, reason: "PASS" as const };
    expect(verifyLine(forged, trusted)).toMatchObject({
      ok: false,
      why: expect.stringMatching(/verdict \(signed "FAIL", claimed "PASS"\); reason/),
    });
    expect(verifyLine({ ...signed, diffSha256: "e".repeat(64) }, trusted)).toMatchObject({
      ok: false,
      why: expect.stringMatching(/the diff \(signed dddddddddddd, claimed eeeeeeeeeeee\)/),
    });
    expect(verifyLine(line(), trusted)).toEqual({ ok: false, why: "not signed" });
  });

  it("bind an answer to its job: the same statement does not verify for another job", () => {
    const envelope = attestLine(line(), key, { job: "grade-1", batch: "b" });
    expect(verifyLine(line(), trusted, { job: "grade-1", batch: "b" }, envelope).ok).toBe(true);
    expect(verifyLine(line(), trusted, { job: "grade-2", batch: "b" }, envelope)).toMatchObject({
      ok: false,
      why: expect.stringMatching(/job \(signed "grade-1", claimed "grade-2"\)/),
    });
  });

  it("sign a baseline run (no diff) over the empty digest", () => {
    const signed = signedLine(line({ diffSha256: null }), key);
    expect(verifyLine(signed, trusted).ok).toBe(true);
    expect(verifyLine({ ...signed, diffSha256: "d".repeat(64) }, trusted).ok).toBe(false);
  });
});

describe("oracle-verify's account of a results file", () => {
  it("says what each line was graded on, and flags an edited line and a repeated id", async () => {
    const dir = scratch();
    const key = loadSigningKey(join(dir, "k.pem"));
    const good = signedLine(line(), key, { batch: "b1" });
    const edited = { ...signedLine(line({ id: "p2" }), key), verdict: "PASS", reason: "PASS" };
    const file = join(dir, "results.jsonl");
    writeFileSync(file, [good, edited, good].map((l) => JSON.stringify(l)).join("\n"));
    const { lines, failed } = await verifyFile(file, trustList(key));
    expect(failed).toBe(2);
    expect(lines[0]).toMatch(
      /^ok .*:1 p1 \(calc-node\): FAIL TESTS_FAILED; graded on diff d{12}, task t{12}, image 1, grader 0\.1\.0, timeout 60 s, tests_hash a{12}, validation -, batch b1; signed by [0-9a-f]{12} at /,
    );
    expect(lines[1]).toMatch(/^UNVERIFIED .*:2 p2 \(calc-node\): the statement does not match: verdict/);
    expect(lines[2]).toMatch(/^UNVERIFIED .*:3 p1 \(calc-node\): the id was already given on line 1/);
  });
});

describe("a single grade's --result file", () => {
  const suite = (status: "PASS" | "FAIL") => ({
    status,
    exitCode: status === "PASS" ? 0 : 1,
    durationMs: 900,
    counts: { passed: 3, failed: status === "PASS" ? 0 : 1, error: 0, skipped: 0 },
    tests: [],
    output: { bytes: 0, truncated: false },
  });
  const result = (): GradeResult =>
    GradeResultSchema.parse({
      graderVersion: "0.1.0",
      task: "calc-node",
      mode: "grade",
      verdict: "FAIL",
      reason: "TESTS_FAILED",
      message: "hidden suite: 1 failed",
      testsHash: "a".repeat(64),
      testIds: [],
      suites: { existing: suite("PASS"), hidden: suite("FAIL") },
      image: { name: "node-mocha", reference: null, digest: "sha256:1" },
      diff: { sha256: "d".repeat(64), filteredSha256: null, dropped: [] },
      timings: {},
      logPath: "/logs/x.jsonl",
      startedAt: "2026-12-06T00:00:00.000Z",
      durationMs: 2000,
    });

  it("is signed whole: oracle-verify says what it was graded on, and refuses it once edited", async () => {
    const dir = scratch();
    const key = loadSigningKey(join(dir, "key.pem"));
    const trusted = trustList(key);
    const file = join(dir, "result.json");
    writeFileSync(file, JSON.stringify(signResult(result(), key), null, 2));
    const ok = await verifyFile(file, trusted);
    expect(ok.failed).toBe(0);
    expect(ok.lines[0]).toMatch(
      /^ok .*result\.json: FAIL TESTS_FAILED; task calc-node, grade, diff [0-9a-f]{12}/,
    );
    const edited = { ...JSON.parse(readFileSync(file, "utf8")), verdict: "PASS", reason: "PASS" };
    writeFileSync(file, JSON.stringify(edited));
    expect(verifyResult(edited, trusted)).toMatchObject({ ok: false, why: /changed after signing/ });
    expect((await verifyFile(file, trusted)).failed).toBe(1);
    expect(verifyResult(result(), trusted)).toEqual({ ok: false, why: "not signed" });
  });
});
