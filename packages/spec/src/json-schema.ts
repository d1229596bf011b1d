import { z } from "zod";
import { TaskSchema } from "./task.js";

/** The JSON Schema of task.json, for editors; committed as packages/spec/task.schema.json. */
export function taskJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(TaskSchema, { io: "input", unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  return { ...schema, $id: "https://oracle.invalid/task.schema.json", title: "oracle task.json" };
}
