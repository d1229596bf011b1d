import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { taskJsonSchema } from "./json-schema.js";

describe("task.schema.json", () => {
  it("is current with the zod schema (regenerate: pnpm --filter @oracle/spec build && pnpm --filter @oracle/spec gen-schema)", async () => {
    const committed = JSON.parse(await readFile(new URL("../task.schema.json", import.meta.url), "utf8"));
    expect(committed).toEqual(taskJsonSchema());
  });

  it("forbids unknown fields, so editors flag typos", () => {
    const schema = taskJsonSchema() as { additionalProperties?: unknown; required?: string[] };
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual(expect.arrayContaining(["id", "image", "repo", "suites"]));
  });
});
