// scripts/nightly.sh's schedule and exit codes, with stand-ins for the two bins (no Docker): each
// records its arguments and exits as told. The real bins run it in health.test.ts.
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot, run } from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const script = join(repoRoot, "scripts", "nightly.sh");
let bins: string;

beforeAll(async () => {
  bins = await mkdtemp(join(tmpdir(), "oracle-nightly-"));
  const stubs: Array<[string, string]> = [
    ["oracle-build-images", "FAKE_BUILD_EXIT"],
    ["oracle-quarantine-sweep", "FAKE_SWEEP_EXIT"],
  ];
  for (const [name, code] of stubs) {
    const file = join(bins, name);
    await writeFile(file, `#!/bin/sh\necho "${name} $*" >> "$FAKE_CALLS"\nexit "\${${code}:-0}"\n`);
    await chmod(file, 0o755);
  }
});
afterAll(() => rm(bins, { recursive: true, force: true }));

let n = 0;
async function nightly(args: string[], env: Record<string, string> = {}) {
  const calls = join(bins, `calls-${++n}`);
  await writeFile(calls, "");
  const result = await run("bash", [script, "--root", "/r", "--report", "/rep", ...args], {
    env: { ORACLE_BIN_DIR: bins, FAKE_CALLS: calls, NIGHTLY_WEEKDAY: "3", ...env },
    timeoutMs: 10_000,
  });
  return { ...result, calls: (await readFile(calls, "utf8")).trim().split("\n").filter(Boolean) };
}

const SWEEP_CHANGED = "oracle-quarantine-sweep --root /r --changed --repeat 3 --report /rep --fail-on-new";
const SWEEP_FULL = "oracle-quarantine-sweep --root /r --repeat 3 --report /rep --fail-on-new";

describe("scripts/nightly.sh", () => {
  it("on a weekday builds the images, then sweeps only the tasks that are not current", async () => {
    const { code, calls, stderr } = await nightly([]);
    expect(code, stderr).toBe(0);
    expect(calls).toEqual(["oracle-build-images --root /r", SWEEP_CHANGED]);
  });

  it("sweeps every task on Sundays (UTC) and with --full", async () => {
    expect((await nightly([], { NIGHTLY_WEEKDAY: "7" })).calls).toEqual([
      "oracle-build-images --root /r",
      SWEEP_FULL,
    ]);
    expect((await nightly(["--full"])).calls[1]).toBe(SWEEP_FULL);
    expect((await nightly(["--repeat", "1"], { NIGHTLY_REPEAT: "5" })).calls[1]).toContain("--repeat 1");
    expect((await nightly([], { NIGHTLY_REPEAT: "5" })).calls[1]).toContain("--repeat 5");
  });

  it("exits 1 when the sweep newly quarantines a task (--fail-on-new)", async () => {
    const { code, stderr } = await nightly([], { FAKE_SWEEP_EXIT: "1" });
    expect(code).toBe(1);
    expect(stderr).toContain("quarantine-sweep exit 1");
  });

  it("still sweeps when an image failed to build, then exits 1", async () => {
    const { code, calls, stderr } = await nightly([], { FAKE_BUILD_EXIT: "1" });
    expect(code).toBe(1);
    expect(calls).toEqual(["oracle-build-images --root /r", SWEEP_CHANGED]);
    expect(stderr).toContain("an image failed to build");
  });

  it("stops when build-images cannot run, and on a usage error", async () => {
    const broken = await nightly([], { FAKE_BUILD_EXIT: "2" });
    expect(broken.code).toBe(2);
    expect(broken.calls).toEqual(["oracle-build-images --root /r"]);
    const usage = await nightly(["--bogus"]);
    expect(usage.code).toBe(2);
    expect(usage.calls).toEqual([]);
    expect(usage.stderr).toContain("usage: scripts/nightly.sh");
  });
});
