import { describe, expect, it } from "vitest";
import { pnpmLockedVersions, yarnLockedVersions } from "./other-locks.js";

describe("pnpmLockedVersions: the runner a pnpm-lock.yaml pins for the root project", () => {
  it("lockfile 9 (unjs/defu's, cut): importers . with specifier and version, the peer suffix dropped", () => {
    const lock = `lockfileVersion: '9.0'

settings:
  autoInstallPeers: true
  excludeLinksFromLockfile: false

importers:

  .:
    devDependencies:
      '@vitest/coverage-v8':
        specifier: ^4.1.2
        version: 4.1.2(vitest@4.1.2(@types/node@25.5.0))
      typescript:
        specifier: ^6.0.2
        version: 6.0.2
      vitest:
        specifier: ^4.1.2
        version: 4.1.2(@types/node@25.5.0)(jiti@2.6.1)

  packages/other:
    devDependencies:
      jest:
        specifier: ^29.0.0
        version: 29.7.0

packages:

  vitest@4.1.2:
    resolution: {integrity: sha512-x}
`;
    expect(pnpmLockedVersions(lock, ["vitest", "jest", "mocha"])).toEqual({ vitest: "4.1.2" });
  });
  it("lockfile 6 and 5.4 at the top level", () => {
    const six = `lockfileVersion: '6.0'

dependencies:
  picomatch:
    specifier: ^2.3.1
    version: 2.3.1

devDependencies:
  mocha:
    specifier: ^10.0.0
    version: 10.2.0
  vitest:
    specifier: ^1.0.1
    version: 1.0.1(@types/node@20.10.0)
`;
    expect(pnpmLockedVersions(six, ["vitest", "mocha", "jest"])).toEqual({
      vitest: "1.0.1",
      mocha: "10.2.0",
    });
    const five = `lockfileVersion: 5.4

specifiers:
  jest: ^27.0.0
  ts-jest: ^27.0.0

devDependencies:
  jest: 27.5.1_ts-node@10.9.1
  ts-jest: 27.1.4_jest@27.5.1
`;
    expect(pnpmLockedVersions(five, ["jest"])).toEqual({ jest: "27.5.1" });
    expect(
      pnpmLockedVersions("lockfileVersion: 5.4\n\ndevDependencies:\n  jest: link:../jest\n", ["jest"]),
    ).toEqual({});
  });
});

describe("yarnLockedVersions: the runner a yarn.lock resolves for the package.json's range", () => {
  it("yarn 1 and berry; the entry of the package.json's range when there are several", () => {
    const one = `# yarn lockfile v1


jest@^26.0.0, jest@^26.6.3:
  version "26.6.3"
  resolved "https://registry.yarnpkg.com/jest/-/jest-26.6.3.tgz"

jest@^24.0.0:
  version "24.9.0"

jest-cli@^26.6.3:
  version "26.6.3"
`;
    expect(yarnLockedVersions(one, { jest: "^26.6.3" }, ["jest", "mocha"])).toEqual({ jest: "26.6.3" });
    expect(yarnLockedVersions(one, { jest: "^24.0.0" }, ["jest"])).toEqual({ jest: "24.9.0" });
    const berry = `__metadata:
  version: 6

"mocha@npm:^10.0.0":
  version: 10.2.0
  resolution: "mocha@npm:10.2.0"
`;
    expect(yarnLockedVersions(berry, { mocha: "^10.0.0" }, ["mocha"])).toEqual({ mocha: "10.2.0" });
  });
});
