import type { TestCase, TestOutcome } from "@oracle/spec";
import { XMLParser, XMLValidator } from "fast-xml-parser";

/** The suite a test belongs to; the first part of its identifier. */
export type SuiteName = "existing" | "hidden";

/** A JUnit report that cannot be read as JUnit XML. */
export class ReportInvalidError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReportInvalidError";
  }
}

type XmlNode = Record<string, unknown>;

const ARRAYS = new Set(["testsuites", "testsuite", "testcase", "failure", "error", "skipped"]);
const MAX_MESSAGE = 2000;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  parseAttributeValue: false,
  parseTagValue: false,
  trimValues: false,
  processEntities: true,
  htmlEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  isArray: (name) => ARRAYS.has(name),
});

/** `<suite>:<file, else classname>::<name>` */
export function testId(suite: SuiteName, fileOrClass: string, name: string): string {
  return `${suite}:${fileOrClass}::${name}`;
}

const children = (node: XmlNode, key: string): XmlNode[] => {
  const value = node[key];
  if (!Array.isArray(value)) return [];
  return value.map((item) => (typeof item === "object" && item !== null ? (item as XmlNode) : {}));
};
const attr = (node: XmlNode, name: string): string | undefined => {
  const value = node[`@_${name}`];
  return typeof value === "string" ? value : undefined;
};

function messageOf(nodes: XmlNode[]): string | undefined {
  const node = nodes[0];
  if (!node) return undefined;
  const text = attr(node, "message") ?? (typeof node["#text"] === "string" ? node["#text"] : "");
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text || undefined;
}

/** failure/error first (a skipped element beside them does not hide them), then skipped. */
function outcomeOf(testcase: XmlNode): { outcome: TestOutcome; message?: string } {
  const failures = children(testcase, "failure");
  if (failures.length > 0) return { outcome: "failed", message: messageOf(failures) };
  const errors = children(testcase, "error");
  if (errors.length > 0) return { outcome: "error", message: messageOf(errors) };
  const status = (attr(testcase, "status") ?? attr(testcase, "result") ?? "").toLowerCase();
  if ("skipped" in testcase || ["skipped", "notrun", "disabled"].includes(status)) {
    return { outcome: "skipped", message: messageOf(children(testcase, "skipped")) };
  }
  return { outcome: "passed" };
}

function collect(node: XmlNode, suite: SuiteName, inherited: string, out: TestCase[]): void {
  for (const testcase of children(node, "testcase")) {
    const name = attr(testcase, "name");
    if (name === undefined) throw new ReportInvalidError("a <testcase> without a name attribute");
    const where = attr(testcase, "file") ?? attr(testcase, "classname") ?? inherited;
    const { outcome, message } = outcomeOf(testcase);
    const seconds = Number(attr(testcase, "time"));
    out.push({
      id: testId(suite, where, name),
      outcome,
      ...(Number.isFinite(seconds) && seconds >= 0 ? { timeSeconds: seconds } : {}),
      ...(message ? { message } : {}),
    });
  }
  for (const child of children(node, "testsuite"))
    collect(child, suite, attr(child, "name") ?? inherited, out);
}

/**
 * Parses a JUnit XML report (pytest, vitest, jest-junit, mocha-junit-reporter, node:test, gotestsum,
 * cargo nextest, Maven surefire shapes) into test cases with identifiers for `suite`. DTDs are
 * refused, so no entity is ever expanded beyond XML's five and character references.
 */
export function parseJUnit(xml: string, suite: SuiteName): TestCase[] {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw new ReportInvalidError("the report declares a DTD or entities");
  const valid = XMLValidator.validate(xml);
  if (valid !== true) {
    throw new ReportInvalidError(`not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`);
  }
  const doc = parser.parse(xml) as XmlNode;
  const roots = Object.keys(doc).filter((key) => !key.startsWith("?") && !key.startsWith("#"));
  if (roots.length !== 1 || !["testsuites", "testsuite"].includes(roots[0]!)) {
    throw new ReportInvalidError(
      `the root element is <${roots.join("|") || "none"}>, not <testsuites> or <testsuite>`,
    );
  }
  const tests: TestCase[] = [];
  collect(doc, suite, "", tests);
  for (const root of children(doc, "testsuites")) collect(root, suite, "", tests);
  return tests;
}
