export type { AttachedStreams, EngineContainer } from "./container.js";
export { Demuxer } from "./demux.js";
export type { ContainerFound, Engine, ImageFound } from "./engine.js";
export { dockerEngine } from "./engine.js";
export type { BuildRequest, PushRequest, StreamCallbacks } from "./image-streams.js";
export type { EngineMessage } from "./json-stream.js";
export type { Component, LabelKey } from "./labels.js";
export {
  benchLabels,
  gradeLabels,
  imageLabels,
  LABEL,
  labelFilter,
  PROJECT,
  projectLabels,
  suiteLabels,
} from "./labels.js";
export { LEASE_GRACE_MS, leaseDeadline, pidNamespace } from "./lease.js";
export type { LeftoverEngine, LeftoverOptions } from "./leftovers.js";
export { GRADE_CONTAINERS, LEFTOVERS_TIMEOUT_MS, leftoverReason, removeLeftovers } from "./leftovers.js";
export type {
  ContainerCreateOptions,
  ContainerInfo,
  ContainerInspectInfo,
  DockerOptions,
  Dockerode,
} from "./load.js";
export { connectDocker, loadDockerode } from "./load.js";
export { DOCKER_UNAVAILABLE_HINT, PING_TIMEOUT_MS, pingEngine } from "./ping.js";
export { registryHasManifest } from "./registry.js";
