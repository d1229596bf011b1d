/** Text edits by offset (UTF-16, as the parser gives them), applied together. */
export interface Edit {
  start: number;
  end: number;
  text: string;
}

/** Applies non-overlapping edits; a replacement that spans fewer lines than what it replaces is padded with newlines, so later lines keep their numbers. */
export function applyEdits(text: string, edits: readonly Edit[]): string {
  const sorted = [...edits].sort((a, b) => b.start - a.start || b.end - a.end);
  let out = text;
  let limit = Number.POSITIVE_INFINITY;
  for (const edit of sorted) {
    if (edit.end > limit) throw new Error("overlapping edits");
    const replaced = out.slice(edit.start, edit.end);
    const lost = lines(replaced) - lines(edit.text);
    const padded = lost > 0 ? `${edit.text}${"\n".repeat(lost)}` : edit.text;
    out = `${out.slice(0, edit.start)}${padded}${out.slice(edit.end)}`;
    limit = edit.start;
  }
  return out;
}

const lines = (text: string): number => text.split("\n").length - 1;
