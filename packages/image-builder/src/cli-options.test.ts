import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_BUILD_TIMEOUT_MS } from "./build-images.js";
import { parseCliArgs } from "./cli-options.js";

let base: string;
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "oracle-cli-"));
  await mkdir(join(base, "images", "x", "deep"), { recursive: true });
});
afterAll(() => rm(base, { recursive: true, force: true }));

const parse = (argv: string[], env: NodeJS.ProcessEnv = {}) => parseCliArgs(argv, env, base);

describe("parseCliArgs", () => {
  it("has defaults: the local registry, 30 min, every image", () => {
    expect(parse([])).toEqual({
      root: base,
      only: [],
      force: false,
      watch: false,
      registry: "127.0.0.1:5000",
      caFile: undefined,
      buildTimeoutMs: DEFAULT_BUILD_TIMEOUT_MS,
      lockWaitMs: 30 * 60 * 1000,
      json: false,
    });
  });

  it("maps every flag", () => {
    const options = parse([
      "--root",
      "r",
      "--only",
      "a",
      "--only",
      "b,c",
      "d",
      "--force",
      "--watch",
      "--registry",
      "reg.example.com:443",
      "--ca-file",
      "ca.pem",
      "--build-timeout",
      "90",
      "--lock-wait",
      "0",
      "--json",
    ]);
    expect(options).toMatchObject({
      root: join(base, "r"),
      rootGiven: join(base, "r"),
      lockWaitMs: 0,
      only: ["a", "b", "c", "d"],
      force: true,
      watch: true,
      registry: "reg.example.com:443",
      caFile: join(base, "ca.pem"),
      buildTimeoutMs: 90_000,
      json: true,
    });
  });

  it("--no-push records image IDs; ORACLE_BUILD_CA_FILE supplies the CA", () => {
    expect(parse(["--no-push"], { ORACLE_BUILD_CA_FILE: "/etc/ca.pem" })).toMatchObject({
      registry: null,
      caFile: "/etc/ca.pem",
    });
  });

  it.each([
    [["--bogus"], /Unknown option/],
    [["--registry", "a/b c"], /^--registry: must be HOST or HOST:PORT/],
    [["--registry", "r:5000", "--no-push"], /exclude each other/],
    [["--build-timeout", "0"], /^--build-timeout: must be a whole number/],
    [["--root"], /argument missing|requires|argument/],
  ])("rejects %j with USAGE", (argv, message) => {
    expect(() => parse(argv)).toThrow(message);
    try {
      parse(argv);
    } catch (error) {
      expect(error).toMatchObject({ code: "USAGE" });
    }
  });

  it("finds the default root upwards from the working folder", () => {
    expect(parseCliArgs([], {}, join(base, "images", "x", "deep")).root).toBe(base);
  });
});
