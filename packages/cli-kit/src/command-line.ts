import { type ParseArgsConfig, parseArgs } from "node:util";
import { describeIssues, OracleError } from "@oracle/spec";
import { z } from "zod";

/** One flag of a command line. */
export interface FlagSpec {
  type: "string" | "boolean";
  /** Repeatable: the field gets every value, in order. */
  multiple?: boolean;
  /** A one-letter alias (`-h`). */
  short?: string;
  /** The options field it fills; default the flag's name in camelCase (`--infra-retries` → `infraRetries`). */
  field?: string;
}

/** Where a command line's bare arguments go. */
export interface PositionalSpec {
  /** The options field they fill; when a repeatable flag fills it too, they come after its values. */
  field: string;
  /** How errors name them, as the usage line does: `TASK`, `FILE`, `GLOB`. */
  name: string;
  /** Any number of them; without it, at most one. */
  multiple?: boolean;
}

/** A command line: its flags, its bare arguments, and the schema of the options they fill. */
export interface CommandLineSpec<S extends z.ZodType> {
  /** The command as a user types it before `--help`, for the hint: `oracle-grade --batch`. */
  command: string;
  /** By flag name, without the dashes. `--help`/`-h` is every command's and is not listed. */
  flags: Readonly<Record<string, FlagSpec>>;
  /** Bare arguments; without it, one is a usage error. */
  positionals?: PositionalSpec;
  /** The options object by field (a strict object: a field no flag fills is a bug tests find at once). */
  schema: S;
}

/** The `USAGE` error of `command`, with the hint every command gives. */
export function usageError(command: string, message: string): OracleError {
  return new OracleError("USAGE", message, { hint: `run ${command} --help` });
}

/** Whether argv asks for help (`--help` or `-h` before any `--`): help wins over everything else on the line. */
export function wantsHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf("--");
  return (end === -1 ? argv : argv.slice(0, end)).some((arg) => arg === "--help" || arg === "-h");
}

const camel = (flag: string) => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
const fieldOf = (flag: string, spec: FlagSpec) => spec.field ?? camel(flag);

// A missing value reads "Required", as in every other input's errors (spec's parseWith).
const requiredMessage: z.core.$ZodErrorMap = (issue) =>
  issue.code === "invalid_type" && issue.input === undefined ? "Required" : undefined;

function readArgv(spec: CommandLineSpec<z.ZodType>, argv: readonly string[]) {
  const options: NonNullable<ParseArgsConfig["options"]> = { help: { type: "boolean", short: "h" } };
  for (const [flag, { type, multiple, short }] of Object.entries(spec.flags))
    options[flag] = { type, ...(multiple ? { multiple } : {}), ...(short ? { short } : {}) };
  try {
    return parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: spec.positionals !== undefined,
      options,
    });
  } catch (cause) {
    throw usageError(spec.command, (cause as Error).message);
  }
}

function placePositionals(spec: CommandLineSpec<z.ZodType>, given: string[], data: Record<string, unknown>) {
  const positional = spec.positionals;
  if (!positional || given.length === 0) return;
  if (positional.multiple) {
    const before = data[positional.field];
    data[positional.field] = [...(Array.isArray(before) ? before : []), ...given];
  } else if (given.length > 1) {
    throw usageError(spec.command, `one ${positional.name} only, got: ${given.join(" ")}`);
  } else data[positional.field] = given[0];
}

/** The name a user knows a field by: its flag (`--infra-retries`), else its positional name (`TASK`). */
function displayName(spec: CommandLineSpec<z.ZodType>, field: PropertyKey): PropertyKey {
  const flag = Object.entries(spec.flags).find(([name, f]) => fieldOf(name, f) === field);
  if (flag) return `--${flag[0]}`;
  return spec.positionals?.field === field ? spec.positionals.name : field;
}

/**
 * The schema's complaints, one line each in the format of every input's errors (`field: message`),
 * each field named as the user typed it: `--concurrency: must be at least 1`, `--tasks[0]: …`.
 */
export function optionIssues(spec: CommandLineSpec<z.ZodType>, error: z.ZodError): string {
  const named = error.issues.map((issue) => {
    const [field, ...rest] = issue.path;
    return field === undefined ? issue : { ...issue, path: [displayName(spec, field), ...rest] };
  });
  return describeIssues(new z.ZodError(named)).join("\n");
}

/**
 * Parses argv (without node and the script) by `spec`: node:util's parseArgs reads the flags, each
 * fills its field, and the schema checks and converts the whole. Any problem is a USAGE error naming
 * the flag. `--help` is not an option here: ask {@link wantsHelp} first.
 */
export function parseCommandLine<S extends z.ZodType>(
  spec: CommandLineSpec<S>,
  argv: readonly string[],
): z.output<S> {
  const { values, positionals } = readArgv(spec, argv);
  const data: Record<string, unknown> = {};
  for (const [flag, value] of Object.entries(values)) {
    const flagSpec = spec.flags[flag];
    if (flagSpec) data[fieldOf(flag, flagSpec)] = value;
  }
  placePositionals(spec, positionals, data);
  const result = spec.schema.safeParse(data, { error: requiredMessage });
  if (!result.success) throw usageError(spec.command, optionIssues(spec, result.error));
  return result.data;
}
