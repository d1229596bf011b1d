import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { connectDocker } from "./load.js";

describe("loadDockerode", () => {
  it("leaves BuildKit sessions (gRPC) and ssh2 unloaded until their first use", () => {
    connectDocker({ socketPath: "/nonexistent/oracle-engine-test.sock" });
    const fromEngine = createRequire(import.meta.url);
    const fromDockerode = createRequire(fromEngine.resolve("dockerode"));
    for (const path of [
      fromEngine.resolve("dockerode/lib/session.js"),
      fromDockerode.resolve("docker-modem/lib/ssh.js"),
    ]) {
      const exported = fromEngine.cache[path]?.exports as { name?: string } | undefined;
      expect(exported, path).toBeTypeOf("function");
      expect(exported?.name, path).toBe("deferred");
    }
  });
});
