import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type CommandLineSpec, parseCommandLine, wantsHelp } from "./command-line.js";
import { wholeNumberArg } from "./numbers.js";

const spec = {
  command: "oracle-demo",
  flags: {
    root: { type: "string" },
    "infra-retries": { type: "string" },
    "no-cache": { type: "boolean", field: "cache" },
    only: { type: "string", multiple: true },
    queue: { type: "string" },
  },
  positionals: { field: "only", name: "NAME", multiple: true },
  schema: z.strictObject({
    root: z.string().min(1).default("."),
    infraRetries: wholeNumberArg(0, 10).default(2),
    cache: z
      .boolean()
      .transform((noCache) => !noCache)
      .default(true),
    only: z.array(z.string().min(1, "a name may not be empty")).default([]),
    queue: z.string({ error: "give --queue URL" }).optional(),
  }),
} satisfies CommandLineSpec<z.ZodType>;

const parse = (...argv: string[]) => parseCommandLine(spec, argv);

/** The USAGE error `parse(argv)` throws. */
function usage(...argv: string[]): { code: string; message: string; hint: string } {
  try {
    parse(...argv);
  } catch (error) {
    return error as { code: string; message: string; hint: string };
  }
  throw new Error(`no error for ${argv.join(" ")}`);
}

describe("parseCommandLine", () => {
  it("gives the schema's defaults for an empty command line", () => {
    expect(parse()).toEqual({ root: ".", infraRetries: 2, cache: true, only: [] });
  });

  it("renames each flag to its field (camelCase, or the field it names) and converts its value", () => {
    expect(parse("--root", "/r", "--infra-retries", "0", "--no-cache", "--queue", "q")).toEqual({
      root: "/r",
      infraRetries: 0,
      cache: false,
      only: [],
      queue: "q",
    });
  });

  it("puts bare arguments after a repeatable flag's values in the same field", () => {
    expect(parse("a", "--only", "b", "--only", "c", "d").only).toEqual(["b", "c", "a", "d"]);
  });

  it("takes one bare argument at most unless they are multiple, and none without positionals", () => {
    const single = { ...spec, positionals: { field: "root", name: "ROOT" } };
    expect(parseCommandLine(single, ["x"]).root).toBe("x");
    expect(() => parseCommandLine(single, ["x", "y"])).toThrow("one ROOT only, got: x y");
    const none = { ...spec, positionals: undefined };
    expect(() => parseCommandLine(none, ["x"])).toThrow(/Unexpected argument 'x'/);
  });

  it("names each problem by the flag the user typed, in the field: message format", () => {
    expect(usage("--infra-retries", "11", "--only", "")).toMatchObject({
      code: "USAGE",
      message: "--infra-retries: must be at most 10\n--only[0]: a name may not be empty",
      hint: "run oracle-demo --help",
    });
    expect(usage("").message).toBe("--only[0]: a name may not be empty");
    const task = { ...spec, positionals: { field: "task", name: "TASK" } };
    const required = { ...task, schema: spec.schema.extend({ task: z.string() }) };
    expect(() => parseCommandLine(required, [])).toThrow(/^TASK: Required$/);
  });

  it("turns node:util's own errors into USAGE errors", () => {
    expect(usage("--frobnicate")).toMatchObject({ code: "USAGE", message: /Unknown option '--frobnicate'/ });
    expect(usage("--root")).toMatchObject({ code: "USAGE", message: /argument missing/ });
    expect(usage("--no-cache=yes")).toMatchObject({ code: "USAGE", message: /does not take an argument/ });
  });
});

describe("wantsHelp", () => {
  it("finds --help or -h anywhere before --, whatever else the line holds", () => {
    expect(wantsHelp(["--help"])).toBe(true);
    expect(wantsHelp(["--bogus", "x", "-h"])).toBe(true);
    expect(wantsHelp(["--", "--help"])).toBe(false);
    expect(wantsHelp(["--helpful", "h"])).toBe(false);
  });
});
