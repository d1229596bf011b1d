/** Lines a suite's stream keeps from its start and from its end; the oracle log holds everything. */
export const HEAD_LINES = 20;
export const TAIL_LINES = 80;
/** Characters a shown line keeps (a minified bundle or a progress bar can be one enormous line). */
export const MAX_LINE_CHARS = 400;

/**
 * Joins a suite stream's chunks into lines. Runners write a chunk per test (pytest's `.`, mocha's
 * dots), and the log has an event per chunk: read one per line, a 20 s run is hundreds of lines of
 * single characters. Keeps the first and the last lines, counting what it leaves out, so a huge
 * output costs bounded memory.
 */
export class CoalescedOutput {
  private readonly head: string[] = [];
  private readonly tail: string[] = [];
  private partial = "";
  private omitted = 0;

  add(text: string): void {
    const parts = (this.partial + text).split("\n");
    this.partial = parts.pop() ?? "";
    if (this.partial.length > MAX_LINE_CHARS * 4) {
      this.push(this.partial);
      this.partial = "";
    }
    for (const part of parts) this.push(part);
  }

  /** The lines, with one `… N lines left out …` marker where the middle was dropped. */
  lines(): string[] {
    const last = this.partial === "" ? [] : [shorten(this.partial)];
    const gap = this.omitted > 0 ? [`… ${this.omitted} line(s) left out (all in the log) …`] : [];
    return [...this.head, ...gap, ...this.tail, ...last];
  }

  private push(raw: string): void {
    // A carriage return redraws the line on a terminal: what a person saw is the text after the last one.
    const line = shorten(raw.replace(/\r+$/, "").split("\r").pop() ?? "");
    if (this.head.length < HEAD_LINES) {
      this.head.push(line);
      return;
    }
    this.tail.push(line);
    if (this.tail.length > TAIL_LINES) {
      this.tail.shift();
      this.omitted += 1;
    }
  }
}

function shorten(line: string): string {
  return line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}… (${line.length} chars)` : line;
}
