import { StringDecoder } from "node:string_decoder";
import type { TestCase, TestOutcome } from "@oracle/spec";
import { SaxesParser, type SaxesTagPlain } from "saxes";

/** The suite a test belongs to; the first part of its identifier. */
export type SuiteName = "existing" | "hidden";

/** A JUnit report that cannot be read as JUnit XML, or that passes one of the report caps. */
export class ReportInvalidError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReportInvalidError";
  }
}

/**
 * The caps that bound the grader whatever a report holds, each enforced while the report streams
 * through the parser (no tree is ever built). A real suite is far inside every one of them; a
 * report past any is REPORT_INVALID. docs/security.md gives the reasons for each figure.
 */
export const REPORT_CAPS = {
  /** `<testcase>` elements in one report. */
  testcases: 50_000,
  /** Element nesting depth (testsuites > testsuite > testcase > failure is 4). */
  depth: 64,
  /** Attributes on one element. */
  attributes: 64,
  /** Characters of one test identifier. */
  idChars: 4096,
  /** Characters of all the report's test identifiers together. */
  allIdChars: 8 * 1024 * 1024,
  /** Characters of failure/error/skipped messages kept from one report; later messages are dropped. */
  allMessageChars: 1024 * 1024,
} as const;

const MAX_MESSAGE = 2000;
const ROOTS = ["testsuites", "testsuite"];

/** `<suite>:<file, else classname>::<name>` */
export function testId(suite: SuiteName, fileOrClass: string, name: string): string {
  // One flat string (a template literal makes a chain of cons strings, three times the memory).
  return [suite, ":", fileOrClass, "::", name].join("");
}

const OUTCOME_CHILDREN = ["failure", "error", "skipped"] as const;
type OutcomeChild = (typeof OUTCOME_CHILDREN)[number];
const SKIPPED_STATUS = new Set(["skipped", "notrun", "disabled"]);

/** Characters of a Go test's failure text read for its own pass line (a longer text stays failed). */
const MAX_GO_TEXT = 64 * 1024;

/** How a report is read beyond JUnit itself. */
export interface JUnitOptions {
  /**
   * The report is gotestsum's, from `go test` (Go 1.19's test2json). A test whose output runs into
   * Go's own `--- PASS: Name (…)` line (or its indentation) without a newline gets no pass event from test2json, and
   * gotestsum writes it as failed (`message="Failed"`, the test's output as its text) although
   * `go test` passed it. Such a test is read as passed when its text shows Go's pass line for it,
   * run into other output, and no fail line for it. A test that failed has Go's fail line, and a
   * binary with a failed test exits non-zero, which a report of passes contradicts.
   */
  goPassWithoutNewline?: boolean;
}

/** Whether a gotestsum failure text is that of a Go test that passed with its pass line run into its output. */
export function goPassedWithoutNewline(name: string, text: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  // A subtest's pass line is indented: the output can run into the indentation too.
  return new RegExp(`\\S[ \\t]*--- PASS: ${escaped} \\(`).test(text) && !text.includes(`--- FAIL: ${name} (`);
}

const clip = (text: string): string => (text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text);

/**
 * Reads JUnit elements as they stream by, keeping only the test cases and the caps' counters. It
 * allocates next to nothing per element (no frame objects, one testcase state reused), so a report
 * at the caps costs the grader little more than the test cases it returns.
 */
class JUnitReader {
  readonly tests: TestCase[] = [];
  /**
   * Per open element: the testsuite name its testcase children inherit, or null when testcases
   * directly inside it do not count (anything but the root and testsuites nested in counting ones).
   */
  private readonly scopes: (string | null)[] = [];
  private testcases = 0;
  private idChars = 0;
  private messageChars = 0;
  private attributes = 0;
  /** The open testcase's depth (its index in `scopes`), -1 when none is open. */
  private caseDepth = -1;
  private caseId = "";
  private caseName = "";
  private caseTime: number | undefined;
  private caseStatus = "";
  /** What each outcome child of the open testcase said: null when it has none, else its message. */
  private readonly seen: Record<OutcomeChild, string | null> = { failure: null, error: null, skipped: null };
  /** The child whose text is being gathered as the message (it has no message attribute), if any. */
  private gathering: OutcomeChild | null = null;
  /** The open testcase's gotestsum failure text (`goPassWithoutNewline`), while and after it is read. */
  private goText: string | null = null;
  private goGathering = false;

  constructor(
    private readonly suite: SuiteName,
    private readonly options: JUnitOptions = {},
  ) {}

  startTag(tagName: string): void {
    this.attributes = 0;
    if (this.scopes.length >= REPORT_CAPS.depth)
      throw new ReportInvalidError(`elements nested deeper than ${REPORT_CAPS.depth} elements`);
    if (this.scopes.length === 0 && !ROOTS.includes(tagName))
      throw new ReportInvalidError(`the root element is <${tagName}>, not <testsuites> or <testsuite>`);
    if (tagName === "testcase" && ++this.testcases > REPORT_CAPS.testcases)
      throw new ReportInvalidError(`more than ${REPORT_CAPS.testcases} testcases in one report`);
  }

  attribute(): void {
    if (++this.attributes > REPORT_CAPS.attributes)
      throw new ReportInvalidError(`an element with more than ${REPORT_CAPS.attributes} attributes`);
  }

  openTag(tag: SaxesTagPlain): void {
    const depth = this.scopes.length;
    const parent = depth === 0 ? undefined : this.scopes[depth - 1];
    const attrs = tag.attributes;
    let scope: string | null = null;
    if (parent === undefined) scope = tag.name === "testsuite" ? (attrs.name ?? "") : "";
    else if (parent !== null && tag.name === "testsuite") scope = attrs.name ?? parent;
    else if (parent !== null && tag.name === "testcase") this.startCase(attrs, parent, depth);
    else if (this.caseDepth === depth - 1) this.startChild(tag.name, attrs);
    this.scopes.push(scope);
  }

  text(text: string): void {
    if (this.goGathering && this.caseDepth === this.scopes.length - 2 && this.goText!.length <= MAX_GO_TEXT)
      this.goText += text;
    const kind = this.gathering;
    if (kind === null || this.caseDepth !== this.scopes.length - 2) return;
    const sofar = this.seen[kind]!;
    if (sofar.length <= MAX_MESSAGE) this.seen[kind] = (sofar + text).slice(0, MAX_MESSAGE + 1);
  }

  closeTag(): void {
    this.scopes.pop();
    const depth = this.scopes.length;
    if (depth === this.caseDepth + 1) {
      this.gathering = null;
      this.goGathering = false;
    }
    if (depth === this.caseDepth) this.endCase();
  }

  private startCase(attrs: Record<string, string>, scope: string, depth: number): void {
    const name = attrs.name;
    if (name === undefined) throw new ReportInvalidError("a <testcase> without a name attribute");
    const id = testId(this.suite, attrs.file ?? attrs.classname ?? scope, name);
    if (id.length > REPORT_CAPS.idChars)
      throw new ReportInvalidError(`a test identifier longer than ${REPORT_CAPS.idChars} characters`);
    this.idChars += id.length;
    if (this.idChars > REPORT_CAPS.allIdChars)
      throw new ReportInvalidError(
        `test identifiers longer than ${REPORT_CAPS.allIdChars} characters in all`,
      );
    const seconds = attrs.time === undefined ? Number.NaN : Number(attrs.time);
    this.caseDepth = depth;
    this.caseId = id;
    this.caseName = name;
    this.goText = null;
    this.caseTime = Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
    this.caseStatus = attrs.status ?? attrs.result ?? "";
    this.seen.failure = this.seen.error = this.seen.skipped = null;
  }

  private startChild(name: string, attrs: Record<string, string>): void {
    const kind = name === "failure" || name === "error" || name === "skipped" ? name : null;
    if (kind === null || this.seen[kind] !== null) return;
    const message = attrs.message;
    this.seen[kind] = message ?? "";
    this.gathering = message === undefined ? kind : null;
    if (kind === "failure" && message === "Failed" && this.options.goPassWithoutNewline) {
      this.goText = "";
      this.goGathering = true;
    }
  }

  /**
   * failure/error first (a skipped element beside them does not hide them), then skipped; a gotestsum
   * failure of a Go test that passed with its pass line run into its output is a pass (JUnitOptions).
   */
  private outcome(): TestOutcome {
    const { seen } = this;
    if (seen.error !== null) return seen.failure !== null && !this.goPassed() ? "failed" : "error";
    if (seen.failure !== null) return this.goPassed() ? "passed" : "failed";
    return seen.skipped !== null || SKIPPED_STATUS.has(this.caseStatus.toLowerCase()) ? "skipped" : "passed";
  }

  private goPassed(): boolean {
    const text = this.goText;
    return text !== null && text.length <= MAX_GO_TEXT && goPassedWithoutNewline(this.caseName, text);
  }

  private endCase(): void {
    const { seen } = this;
    const outcome = this.outcome();
    const said = outcome === "failed" ? seen.failure : outcome === "error" ? seen.error : seen.skipped;
    const message = outcome === "passed" ? "" : clip(said?.trim() ?? "");
    const test: TestCase = { id: this.caseId, outcome };
    if (this.caseTime !== undefined) test.timeSeconds = this.caseTime;
    if (message && this.messageChars + message.length <= REPORT_CAPS.allMessageChars) {
      this.messageChars += message.length;
      test.message = message;
    }
    this.tests.push(test);
    this.caseDepth = -1;
    this.gathering = null;
  }
}

/** saxes is written to in slices of this many characters: one huge write makes it hold copies of it. */
const PARSE_SLICE = 1 << 16;

/**
 * Parses a JUnit XML report (pytest, vitest, jest-junit, mocha-junit-reporter, node:test, gotestsum,
 * cargo nextest, Maven surefire shapes) into test cases with identifiers for `suite`, streaming: the
 * memory it takes is the test cases it returns, and it stops at the first cap passed (REPORT_CAPS).
 * DTDs are refused, so no entity is ever expanded beyond XML's five and character references.
 */
export function parseJUnit(xml: string, suite: SuiteName, options: JUnitOptions = {}): TestCase[] {
  const stream = new JUnitStream(suite, options);
  for (let at = 0; at < xml.length; at += PARSE_SLICE) stream.writeText(xml.slice(at, at + PARSE_SLICE));
  const read = stream.end();
  if (typeof read === "string") throw new ReportInvalidError(read);
  return read;
}

/**
 * The same parse, fed the report's bytes as they arrive from the container: no copy of the whole
 * report is ever held (a 16 MiB report of 700,000 testcases took the grader to 200 MB when it was
 * read whole, then decoded, then parsed). The first problem stops it; `end()` returns the test cases
 * or why the report is REPORT_INVALID (never throws).
 */
export class JUnitStream {
  private readonly decoder = new StringDecoder("utf8");
  private readonly parser: { parser: SaxesParser; reader: JUnitReader };
  private problem: string | null = null;

  constructor(suite: SuiteName, options: JUnitOptions = {}) {
    this.parser = saxesFor(new JUnitReader(suite, options));
  }

  write(bytes: Buffer): void {
    if (this.problem === null) this.writeText(this.decoder.write(bytes));
  }

  writeText(text: string): void {
    if (this.problem !== null || text === "") return;
    try {
      this.parser.parser.write(text);
    } catch (error) {
      this.problem = problemOf(error);
    }
  }

  end(): TestCase[] | string {
    if (this.problem === null) {
      this.writeText(this.decoder.end());
      try {
        if (this.problem === null) this.parser.parser.close();
      } catch (error) {
        this.problem = problemOf(error);
      }
    }
    return this.problem ?? this.parser.reader.tests;
  }
}

/** Whatever the parser throws is the report's doing: no report can end a run as INFRA_ERROR. */
function problemOf(error: unknown): string {
  if (error instanceof ReportInvalidError) return error.message;
  return `it could not be read: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`;
}

/**
 * A C0 control character XML forbids (all but tab, newline and carriage return). jest-junit and
 * mocha-junit-reporter write a test title's `\f`, `\u0001` or `\u001b` into the report as it is, so
 * a suite that names a test by its data (css-what's `"\f#qunit-fixture p"`) writes a report that is
 * not XML, and every grade of its task would be REPORT_INVALID.
 */
const RAW_CONTROL = /^[\u0000-\u0008\u000b\u000c\u000e-\u001f]$/;

/** The parser's view of the character it just read (saxes 6 keeps it in `chunk` at `prevI`). */
type SaxesAt = { chunk?: unknown; prevI?: unknown };

/**
 * Whether saxes's error is only that it read a raw C0 control character: saxes reports it (XML 1.0
 * and 1.1 both) and goes on with the character as an ordinary one, so inside an attribute value,
 * text, CDATA or a comment it is kept as itself: the identity, so a title `a\fb` is the id `a\fb`,
 * the same the oracle plans from the test's source, and never another title's. Where XML has
 * markup (a name, between attributes, outside the root) the character is no name or space
 * character and saxes fails again with another error, which is not excused; nor is anything else
 * (a character reference to one, U+FFFE, a truncated report). Should saxes's internals differ,
 * nothing is excused.
 */
function rawControlOnly(parser: SaxesParser, error: Error): boolean {
  if (!error.message.endsWith(": disallowed character.")) return false;
  const { chunk, prevI } = parser as unknown as SaxesAt;
  return typeof chunk === "string" && typeof prevI === "number" && RAW_CONTROL.test(chunk.charAt(prevI));
}

function saxesFor(reader: JUnitReader): { parser: SaxesParser; reader: JUnitReader } {
  const parser = new SaxesParser({ fragment: false, xmlns: false, position: true });
  parser.on("error", (error) => {
    if (rawControlOnly(parser, error)) return;
    throw new ReportInvalidError(`not well-formed XML: ${error.message}`);
  });
  parser.on("doctype", () => {
    throw new ReportInvalidError("the report declares a DTD or entities");
  });
  parser.on("opentagstart", (tag) => reader.startTag(tag.name));
  parser.on("attribute", () => reader.attribute());
  parser.on("opentag", (tag) => reader.openTag(tag));
  parser.on("text", (text) => reader.text(text));
  parser.on("cdata", (text) => reader.text(text));
  parser.on("closetag", () => reader.closeTag());
  return { parser, reader };
}
