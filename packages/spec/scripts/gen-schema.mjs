// Writes task.schema.json from the zod schema. Run after `pnpm build`; a test checks it is current.
import { writeFile } from "node:fs/promises";
import { taskJsonSchema } from "../dist/index.js";

const url = new URL("../task.schema.json", import.meta.url);
await writeFile(url, `${JSON.stringify(taskJsonSchema(), null, 2)}\n`);
console.log(`wrote ${url.pathname}`);
