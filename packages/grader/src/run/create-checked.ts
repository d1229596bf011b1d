import type { GradeContainer, GradeDocker } from "../image/docker.js";
import type { SuiteName } from "../reports/junit.js";
import { type ContainerPlan, containerOptions, missingProtections } from "./container-config.js";

/** Who owns a container from the moment it exists (a run's scope, a pool's list), and how its steps are timed. */
export interface ContainerOwner {
  adopt(container: GradeContainer): void;
  timed?<T>(step: string, work: () => Promise<T>): Promise<T>;
}

/** A created container, what the engine made of it, and the protections of its plan it did not apply. */
export interface CheckedContainer {
  container: GradeContainer;
  info: Awaited<ReturnType<GradeContainer["inspect"]>>;
  missing: string[];
}

/**
 * Creates a container from its plan and hands it to its owner at once (whatever happens next, the
 * clean-up finds it), then reads it back: a container with `missing` protections must not start.
 * With a suite, the two calls are timed as create.<suite> and inspect.<suite>. The one way a grade,
 * a run's own containers made ahead (pipeline.ts) and a warm pool (warm-pool.ts) make one.
 */
export async function createChecked(
  docker: GradeDocker,
  plan: ContainerPlan,
  owner: ContainerOwner,
  suite?: SuiteName,
): Promise<CheckedContainer> {
  const timed = <T>(step: string, work: () => Promise<T>) =>
    owner.timed && suite ? owner.timed(`${step}.${suite}`, work) : work();
  const container = await timed("create", () => docker.createContainer(containerOptions(plan)));
  owner.adopt(container);
  const info = await timed("inspect", () => container.inspect());
  return { container, info, missing: missingProtections(info, plan) };
}
