import type { CapturedOutput } from "./bounded-output.js";

/** How much of each stream's end a result keeps for the person reading a FAIL. */
export const TAIL_LINES = 40;
export const TAIL_BYTES = 4096;

/** The last bytes a stream printed: the rolling tail when the output was cut, else all of it. */
function lastText(captured: CapturedOutput): string {
  return captured.truncated ? captured.tail : captured.head + captured.tail;
}

/** Escape sequences a terminal would act on (CSI, OSC, and two-byte ESC sequences). */
const ESCAPES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-_]/g;

function unsafe(code: number): boolean {
  if (code === 0x09 || code === 0x0a) return false;
  return (
    code < 0x20 ||
    (code >= 0x7f && code <= 0x9f) ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  );
}

/**
 * Text the code under test printed, made safe to show on a terminal: line ends normalised, escape
 * sequences removed, every other control or bidi character written as `\u{..}` — it can colour,
 * move, retitle or reorder nothing.
 */
export function printable(text: string): string {
  const plain = text.replace(/\r\n?/g, "\n").replace(ESCAPES, "");
  let out = "";
  for (const ch of plain) {
    const code = ch.codePointAt(0) ?? 0;
    out += unsafe(code) ? `\\u{${code.toString(16)}}` : ch;
  }
  return out;
}

/** The end of a text, at most `lines` lines and `bytes` UTF-8 bytes, with no trailing newline. */
export function lastLines(text: string, lines = TAIL_LINES, bytes = TAIL_BYTES): string {
  const trimmed = text.replace(/\n+$/, "");
  const buffer = Buffer.from(trimmed, "utf8");
  // A cut inside a character leaves replacement characters at the start: drop them.
  const end = buffer
    .subarray(Math.max(0, buffer.length - bytes))
    .toString("utf8")
    .replace(/^\uFFFD+/, "");
  return end.split("\n").slice(-lines).join("\n");
}

/** The bounded, printable end of a suite's stdout and stderr, carried in its result. */
export function suiteTail(
  stdout: CapturedOutput,
  stderr: CapturedOutput,
): { stdout: string; stderr: string } {
  return { stdout: lastLines(printable(lastText(stdout))), stderr: lastLines(printable(lastText(stderr))) };
}
