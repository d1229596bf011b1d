// The grader's names for what it uses of @oracle/engine, the one module over dockerode. The run
// files import them from here.
import { type Dockerode, dockerEngine, type Engine } from "@oracle/engine";

export type { AttachedStreams, EngineContainer as GradeContainer } from "@oracle/engine";
export { Demuxer, loadDockerode } from "@oracle/engine";

/** What the grader needs of the engine; the real one wraps dockerode, unit tests use a fake. */
export type GradeDocker = Pick<
  Engine,
  "findImage" | "pull" | "createContainer" | "listContainers" | "removeContainer"
>;

/** The grader's view of a real engine through dockerode (by default the one DOCKER_HOST names). */
export const dockerodeGradeDocker = (given?: Dockerode): GradeDocker => dockerEngine(given);
