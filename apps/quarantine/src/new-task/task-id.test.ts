import { describe, expect, it } from "vitest";
import { defaultTaskId } from "./from-fix.js";

const FIX = "2d4b1c9e0f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c";

describe("the task id new-task gives a fix commit when --id is not given", () => {
  it("is the repository folder's name and the fix's short sha", () => {
    expect(defaultTaskId("/src/ufo", FIX)).toBe("ufo-2d4b1c9");
    expect(defaultTaskId("/src/ufo.git", FIX)).toBe("ufo-2d4b1c9");
  });

  it("takes the folder that holds a clone's .git or a mirror's repo, whose own names say nothing", () => {
    // A mirror kept as owner+name/repo (the tool library's fetch) made every task `repo-<sha>`.
    expect(defaultTaskId("/work/.mirror/unjs+ufo/repo", FIX)).toBe("unjs-ufo-2d4b1c9");
    expect(defaultTaskId("/src/ufo/.git", FIX)).toBe("ufo-2d4b1c9");
    expect(defaultTaskId("/src/humanize/repo.git", FIX)).toBe("humanize-2d4b1c9");
  });
});
