/**
 * Text from outside the oracle (a suite's output, a report's test ids, a predictions file's ids, a
 * dataset row, a diff) made safe to show on a terminal or in a Markdown report: it can colour, move,
 * clear, retitle or reorder nothing, and hides no character.
 *
 * - Escape sequences (CSI, OSC, DCS/SOS/PM/APC strings, two-byte ESC sequences) are removed whole.
 * - Every other control character (C0 but tab and newline, DEL, C1 such as U+009B, the 8-bit CSI),
 *   bidi control (U+061C, U+200E/F, U+202A–E, U+2066–9), zero-width or invisible character
 *   (U+200B–D, U+2060–4, U+FEFF, U+00AD), line and paragraph separator and lone surrogate is written
 *   as `\u{..}`, so it shows and does nothing.
 * - Line ends are normalised to `\n`; with `oneLine`, newlines and tabs are written as `\u{a}` and
 *   `\u{9}` too (an id or a message that must stay on its line).
 *
 * The result contains only characters that print, so printable(printable(x)) === printable(x).
 */
export function printable(text: string, options: { oneLine?: boolean } = {}): string {
  const plain = text.replace(/\r\n?/g, "\n").replace(ESCAPES, "");
  let out = "";
  for (const ch of plain) {
    const code = ch.codePointAt(0) ?? 0;
    const keep = code === 0x0a || code === 0x09 ? !options.oneLine : !hidden(code);
    out += keep ? ch : `\\u{${code.toString(16)}}`;
  }
  return out;
}

/** CSI, OSC and string sequences (to BEL or ST, or to the end when cut short), then two-byte ESC sequences. */
const ESCAPES =
  /\u001b\[[0-?]*[ -/]*[@-~]|\u001b[\]PX^_][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[ -/]*[0-~]?/g;

const HIDDEN_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x00, 0x1f], // C0
  [0x7f, 0x9f], // DEL and C1 (U+009B is CSI, U+009D OSC on 8-bit terminals)
  [0xad, 0xad], // soft hyphen
  [0x061c, 0x061c], // Arabic letter mark
  [0x180e, 0x180e], // Mongolian vowel separator
  [0x200b, 0x200f], // zero-width space, joiners, LRM, RLM
  [0x2028, 0x202e], // line/paragraph separators, bidi embeddings and overrides
  [0x2060, 0x2069], // word joiner, invisible operators, bidi isolates
  [0xd800, 0xdfff], // lone surrogates
  [0xfeff, 0xfeff], // zero-width no-break space (BOM)
  [0xfff9, 0xfffb], // interlinear annotation controls
];

function hidden(code: number): boolean {
  return HIDDEN_RANGES.some(([low, high]) => code >= low && code <= high);
}

/** Escapes text for a Markdown table cell or list item: no markup, no HTML, no line breaks. */
export function escapeMarkdown(text: string): string {
  // printable first: a test id or message with controls, bidi or zero-width characters shows them.
  return printable(text.replace(/[\r\n]+/g, " "), { oneLine: true })
    .replace(/[\\`*_{}[\]()#+!|<>~]/g, (c) => `\\${c}`)
    .replace(/&/g, "&amp;");
}

/**
 * Text as a Markdown code span: shown as it is, never a link, markup or HTML (GitHub autolinks URLs,
 * `www.` names and e-mail addresses in plain text, escaped or not). One line; `|` escaped, as a
 * table cell needs even inside a span; the fence longer than any run of backticks in the text.
 */
export function codeSpan(text: string): string {
  const one = printable(text.replace(/[\r\n]+/g, " "), { oneLine: true }).replaceAll("|", "\\|");
  const longest = Math.max(0, ...(one.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  const pad = one.startsWith("`") || one.endsWith("`") || one === "" ? " " : "";
  return `${fence}${pad}${one}${pad}${fence}`;
}

/** Escapes text for HTML and SVG content and for quoted attribute values. */
export function escapeHtml(text: string): string {
  return printable(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
