import { describe, expect, it } from "vitest";
import { connectDocker } from "./load.js";
import { DOCKER_UNAVAILABLE_HINT, pingEngine } from "./ping.js";

describe("pingEngine", () => {
  it("an engine that is not there: DOCKER_UNAVAILABLE with the engine's error and how to start it", async () => {
    const docker = connectDocker({ socketPath: "/nonexistent/oracle-engine-test.sock" });
    const error = await pingEngine(docker).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      code: "DOCKER_UNAVAILABLE",
      message: expect.stringMatching(/^the Docker engine does not answer \(.*ENOENT.*\)$/),
      hint: DOCKER_UNAVAILABLE_HINT,
    });
    expect(DOCKER_UNAVAILABLE_HINT).toContain("bash scripts/setup.sh");
  });

  it("an engine that never answers: DOCKER_UNAVAILABLE once the bound has passed", async () => {
    const frozen = { ping: () => new Promise<never>(() => undefined) };
    await expect(pingEngine(frozen, 50)).rejects.toMatchObject({
      code: "DOCKER_UNAVAILABLE",
      message: "the Docker engine does not answer (no answer within 0.05 s)",
    });
  });

  it("resolves when the engine answers", async () => {
    await expect(pingEngine({ ping: async () => Buffer.from("OK") })).resolves.toBeUndefined();
  });
});
