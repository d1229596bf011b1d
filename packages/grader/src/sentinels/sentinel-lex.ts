/** The languages whose strings and comments `openLines` knows. */
export type Lexicon = "python" | "js" | "go";

/** How a literal that may span lines opens and closes, per language. */
interface Spanning {
  open: string;
  close: string;
  /** Whether a backslash escapes the next character inside it. */
  escapes: boolean;
}

const SPANNING: Record<Lexicon, Spanning[]> = {
  python: [
    { open: '"""', close: '"""', escapes: true },
    { open: "'''", close: "'''", escapes: true },
  ],
  js: [
    { open: "`", close: "`", escapes: true },
    { open: "/*", close: "*/", escapes: false },
  ],
  go: [
    { open: "`", close: "`", escapes: false },
    { open: "/*", close: "*/", escapes: false },
  ],
};

const LINE_COMMENT: Record<Lexicon, string> = { python: "#", js: "//", go: "//" };
/** Quotes whose literal ends at the end of its line (unless a backslash continues it). */
const ONE_LINE: Record<Lexicon, string[]> = { python: ['"', "'"], js: ['"', "'"], go: ['"', "'"] };

/**
 * The lines of `text` (by index) that begin inside a string or a comment opened on an earlier line:
 * a Python triple-quoted string, a JS template literal or block comment, a Go raw string or block
 * comment, a one-line string continued by a backslash. The line-based planners (twins, the pytest
 * body copy) must not take such a line for code: a `}` or column-0 line inside a string would end a
 * test early, and a copy inserted there would land inside the string (the file would no longer
 * compile, failing a correct diff).
 */
export function openLines(text: string, lexicon: Lexicon): Set<number> {
  const inside = new Set<number>();
  const spanning = SPANNING[lexicon];
  const comment = LINE_COMMENT[lexicon];
  let line = 0;
  let open: Spanning | { close: string; escapes: true; oneLine: true } | null = null;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === "\n") {
      line++;
      if (open && "oneLine" in open) open = null;
      if (open) inside.add(line);
      continue;
    }
    if (open) {
      if (open.escapes && ch === "\\") {
        // A backslash before the newline continues a one-line string onto the next line.
        if (text[i + 1] === "\n") {
          line++;
          inside.add(line);
        }
        i++;
      } else if (text.startsWith(open.close, i)) {
        i += open.close.length - 1;
        open = null;
      }
      continue;
    }
    if (text.startsWith(comment, i)) {
      const end = text.indexOf("\n", i);
      i = (end < 0 ? text.length : end) - 1;
      continue;
    }
    const span = spanning.find((s) => text.startsWith(s.open, i));
    if (span) {
      open = span;
      i += span.open.length - 1;
    } else if (ONE_LINE[lexicon].includes(ch)) open = { close: ch, escapes: true, oneLine: true };
  }
  return inside;
}

/** Whether any of the lines `from` to `to` (both included) begins inside a literal (`openLines`). */
export const spansLiteral = (inside: ReadonlySet<number>, from: number, to: number): boolean => {
  for (let i = from; i <= to; i++) if (inside.has(i)) return true;
  return false;
};

/**
 * What a reader of `code` learns besides what it computes: its comments, the text of its strings
 * (messages, docstrings, titles, string inputs) and its names (`test_add_5`), one per line; numbers
 * written as code (`add(2, 3)`) are left out. A twin whose value is told here (`want 5`, a title
 * `returns 5`) would show which of the two is the original.
 */
export function toldText(code: string, lexicon: Lexicon): string {
  const comment = LINE_COMMENT[lexicon];
  const quotes: Spanning[] = [
    ...SPANNING[lexicon],
    ...ONE_LINE[lexicon].map((q) => ({ open: q, close: q, escapes: true })),
  ];
  const word = /[A-Za-z_]\w*/y;
  const number = /[\d.]\w*/y;
  const told: string[] = [];
  for (let i = 0; i < code.length; ) {
    if (code.startsWith(comment, i)) {
      const end = code.indexOf("\n", i);
      told.push(code.slice(i, end < 0 ? code.length : end));
      i = end < 0 ? code.length : end;
      continue;
    }
    const quote = quotes.find((q) => code.startsWith(q.open, i));
    if (quote) {
      const oneLine = quote.open.length === 1 && quote.open !== "`";
      let j = i + quote.open.length;
      while (j < code.length && !code.startsWith(quote.close, j) && !(oneLine && code[j] === "\n"))
        j += quote.escapes && code[j] === "\\" ? 2 : 1;
      told.push(code.slice(i + quote.open.length, j));
      i = j + quote.close.length;
      continue;
    }
    word.lastIndex = i;
    number.lastIndex = i;
    const w = word.exec(code) ?? (/\d/.test(code[i]!) ? number.exec(code) : null);
    if (w && /^[A-Za-z_]/.test(w[0])) told.push(w[0]);
    i += w ? w[0].length : 1;
  }
  return told.join("\n");
}

/** One-line string literals of Python, JS and Go (`"…"`, `'…'`, with escapes). */
export const QUOTED = /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g;

/**
 * How many brackets are open after `code`, `depth` being open before it; a closer with none open
 * counts as nothing (a line-based reader's miscount stays local). With `strings`, each string they
 * match is read as empty, so its brackets do not count.
 */
export function depthAfter(code: string, depth: number, strings?: RegExp): number {
  let open = depth;
  for (const ch of strings ? code.replace(strings, '""') : code) {
    if ("([{".includes(ch)) open++;
    else if (")]}".includes(ch)) open = Math.max(0, open - 1);
  }
  return open;
}
