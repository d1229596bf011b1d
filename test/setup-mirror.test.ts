// scripts/setup.sh debootstraps the base image from the Debian archive the machine's own apt sources
// name (issue 33: it named a host of its own). The choice is `debian_mirror` in
// scripts/lib/debian-mirror.sh, run here with an `apt-get` that prints the given index targets.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const LIB = join(import.meta.dirname, "..", "scripts", "lib", "debian-mirror.sh");
const SETUP = join(import.meta.dirname, "..", "scripts", "setup.sh");
const bin = mkdtempSync(join(tmpdir(), "oracle-mirror-"));
afterAll(() => rmSync(bin, { recursive: true, force: true }));

/** `debian_mirror SUITE` with apt-get printing `targets` (TARGET_OF RELEASE REPO_URI per line). */
function mirrorFor(suite: string, targets: string[], env: Record<string, string> = {}): string {
  const file = join(bin, "targets");
  writeFileSync(file, targets.map((t) => `${t}\n`).join(""));
  writeFileSync(join(bin, "apt-get"), `#!/bin/sh\n[ "$1" = indextargets ] || exit 9\ncat '${file}'\n`);
  chmodSync(join(bin, "apt-get"), 0o755);
  return execFileSync("bash", ["-c", `. '${LIB}'; debian_mirror "$1" || true`, "sh", suite], {
    encoding: "utf8",
    env: { PATH: `${bin}:/usr/bin:/bin`, ...env },
  }).trim();
}

describe("the base image's Debian mirror comes from the machine's apt sources", () => {
  it("takes the source apt has for the suite itself, not its security or updates sources", () => {
    const targets = [
      "deb bookworm-security http://security.mirror.test/debian-security/",
      "deb-src bookworm http://src.mirror.test/debian/",
      "deb bookworm-updates http://updates.mirror.test/debian/",
      "deb bookworm http://apt.mirror.test/debian/",
    ];
    expect(mirrorFor("bookworm", targets)).toBe("http://apt.mirror.test/debian");
  });

  it("on a host of another release, takes that release's Debian archive (never -security)", () => {
    const targets = [
      "deb trixie-security http://apt.mirror.test/debian-security/",
      "deb trixie http://apt.mirror.test/debian/",
    ];
    expect(mirrorFor("bookworm", targets)).toBe("http://apt.mirror.test/debian");
  });

  it("prints nothing when apt names no Debian archive, so setup fails with its hint", () => {
    expect(mirrorFor("bookworm", ["deb stable https://packages.vendor.test/apt/"])).toBe("");
    expect(mirrorFor("bookworm", [])).toBe("");
  });

  it("ORACLE_DEBIAN_MIRROR overrides apt's sources", () => {
    const targets = ["deb bookworm http://apt.mirror.test/debian/"];
    expect(mirrorFor("bookworm", targets, { ORACLE_DEBIAN_MIRROR: "http://local.test/deb/" })).toBe(
      "http://local.test/deb",
    );
  });

  it("setup.sh debootstraps from debian_mirror and names no host of its own", () => {
    const setup = readFileSync(SETUP, "utf8");
    expect(setup).toMatch(/debootstrap [^\n]*"\$mirror"/);
    // A URL with a host name in it (the local registry's address is a variable of loopback).
    expect(setup.match(/https?:\/\/[a-z][a-z0-9-]*(\.[a-z0-9-]+)+/gi) ?? []).toEqual([]);
  });
});
