import { z } from "zod";

/** One message of the engine's JSON progress streams (build and push). */
export const EngineMessageSchema = z.looseObject({
  stream: z.string().optional(),
  status: z.string().optional(),
  id: z.string().optional(),
  progress: z.string().optional(),
  error: z.string().optional(),
  errorDetail: z.looseObject({ message: z.string().optional(), code: z.number().optional() }).optional(),
  aux: z
    .looseObject({ ID: z.string().optional(), Digest: z.string().optional(), Tag: z.string().optional() })
    .optional(),
});
export type EngineMessage = z.output<typeof EngineMessageSchema>;

/**
 * Splits a byte stream of newline-separated JSON objects into messages, across chunk boundaries.
 * A line that is not a JSON object becomes a `stream` message, so no output is lost.
 */
export class JsonLineSplitter {
  #rest = "";

  /** Feeds a chunk; returns the complete messages it finished. */
  push(chunk: string | Buffer): EngineMessage[] {
    const lines = (this.#rest + chunk.toString()).split("\n");
    this.#rest = lines.pop() ?? "";
    return lines.flatMap((line) => parseLine(line));
  }

  /** The message left in the buffer when the stream ended without a final newline. */
  end(): EngineMessage[] {
    const rest = this.#rest;
    this.#rest = "";
    return parseLine(rest);
  }
}

function parseLine(line: string): EngineMessage[] {
  const trimmed = line.trim();
  if (!trimmed) return [];
  try {
    const parsed = EngineMessageSchema.safeParse(JSON.parse(trimmed));
    if (parsed.success) return [parsed.data];
  } catch {
    // not JSON: kept as text below
  }
  return [{ stream: `${trimmed}\n` }];
}

/** The error a message carries, if any: `errorDetail.message` first, then `error`. */
export function messageError(message: EngineMessage): string | undefined {
  if (message.errorDetail) return message.errorDetail.message ?? message.error ?? "unknown error";
  return message.error;
}

const STEP = /^Step \d+\/\d+ : /;

/** Follows a legacy-builder stream: the current `Step N/M : ...` line, the image ID, the first error. */
export class BuildStreamTracker {
  /** The last `Step N/M : ...` line seen. */
  step: string | undefined;
  /** The built image's ID (`aux.ID`), once announced. */
  imageId: string | undefined;
  /** The first error, with the step that was running. */
  error: { message: string; step: string | undefined } | undefined;
  #text = "";

  /** Follows one message; returns text for the log (may be empty). */
  follow(message: EngineMessage): string {
    const error = messageError(message);
    if (error !== undefined && !this.error) this.error = { message: error, step: this.step };
    if (message.aux?.ID) this.imageId = message.aux.ID;
    const text = message.stream ?? (message.status ? `${message.status}\n` : "");
    this.#trackSteps(text);
    return error !== undefined ? `${text}ERROR: ${error}\n` : text;
  }

  #trackSteps(text: string): void {
    const lines = (this.#text + text).split("\n");
    this.#text = lines.pop() ?? "";
    // A step line arrives without its newline: look at the unfinished tail too.
    for (const line of [...lines, this.#text]) if (STEP.test(line)) this.step = line.trim();
  }
}

/** Follows a push stream: the pushed digest (`aux.Digest` or the final status line) and the first error. */
export class PushStreamTracker {
  digest: string | undefined;
  error: string | undefined;

  follow(message: EngineMessage): string {
    const error = messageError(message);
    if (error !== undefined && this.error === undefined) this.error = error;
    if (message.aux?.Digest) this.digest = message.aux.Digest;
    const match = message.status?.match(/digest: (sha256:[0-9a-f]{64})/);
    if (match?.[1] && !this.digest) this.digest = match[1];
    if (error !== undefined) return `ERROR: ${error}\n`;
    if (message.status && message.progress === undefined)
      return `${message.id ? `${message.id}: ` : ""}${message.status}\n`;
    return "";
  }
}
