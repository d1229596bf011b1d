import { createRequire, Module } from "node:module";
import type Docker from "dockerode";

/** A dockerode client (the class's instance type). */
export type Dockerode = Docker;
/** How to reach the engine (`socketPath`, `host`…); by default dockerode reads DOCKER_HOST. */
export type DockerOptions = Docker.DockerOptions;
export type ContainerCreateOptions = Docker.ContainerCreateOptions;
export type ContainerInspectInfo = Docker.ContainerInspectInfo;
export type ContainerInfo = Docker.ContainerInfo;

// dockerode is resolved from this package's folder, also when a bundler has copied this module into
// another package's file (the grader's oracle-grade.js): only this package depends on dockerode.
const require = createRequire(createRequire(import.meta.url).resolve("@oracle/engine/package.json"));

/** Puts a stand-in for a CommonJS module in the require cache that loads the real one on first call. */
function deferModule(load: NodeJS.Require, path: string): void {
  if (load.cache[path]) return;
  const standIn = new Module(path);
  standIn.filename = path;
  standIn.loaded = true;
  standIn.exports = function deferred(this: unknown, ...args: unknown[]) {
    delete load.cache[path];
    return (load(path) as (...a: unknown[]) => unknown).apply(this, args);
  };
  load.cache[path] = standIn;
}

/**
 * dockerode's class. dockerode loads gRPC/protobuf (BuildKit sessions) and docker-modem loads ssh2
 * (ssh:// hosts) when imported: most of a grade's start-up (~0.45 s), and the oracle uses neither
 * (its builds use the classic builder). Both are deferred to their first use, so nothing changes for
 * a caller in the same process that does need them.
 */
export function loadDockerode(): typeof Docker {
  deferModule(require, require.resolve("dockerode/lib/session.js"));
  const fromDockerode = createRequire(require.resolve("dockerode"));
  deferModule(fromDockerode, fromDockerode.resolve("docker-modem/lib/ssh.js"));
  return require("dockerode") as typeof Docker;
}

/** A dockerode client of the engine that `options` (default: DOCKER_HOST, else the local socket) names. */
export function connectDocker(options?: DockerOptions): Dockerode {
  const Dockerode = loadDockerode();
  return new Dockerode(options);
}
