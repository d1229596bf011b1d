import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// Every relative link in README.md, docs/*.md and the packages' READMEs points at a file that exists
// and, with a #fragment, at a heading of that file: the README links into docs/ one click deep, and
// sections move.

const REPO = fileURLToPath(new URL("../../../", import.meta.url));

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\p{Pc}\- ]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors of a Markdown text's headings (fenced code left out), repeats numbered as GitHub does. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    const heading = fenced ? undefined : line.match(/^#{1,6} (.+?)\s*#*$/)?.[1];
    if (heading === undefined) continue;
    const anchor = anchorOf(heading);
    const times = seen.get(anchor) ?? 0;
    anchors.add(times === 0 ? anchor : `${anchor}-${times}`);
    seen.set(anchor, times + 1);
  }
  return anchors;
}

/** The link targets of a Markdown text, outside fenced code and code spans. */
function linksOf(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "code");
  return [...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!);
}

/** What is wrong with each relative link of `file`: a missing file, or a fragment no heading has. */
function brokenLinks(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return linksOf(text).flatMap((link) => {
    if (/^[a-z]+:/i.test(link)) return [];
    const [path = "", fragment] = link.split("#");
    const target = path === "" ? file : join(dirname(file), decodeURIComponent(path));
    if (!existsSync(target)) return [`${link}: no such file`];
    if (fragment === undefined || statSync(target).isDirectory()) return [];
    if (!target.endsWith(".md")) return [`${link}: a fragment into a file that is not Markdown`];
    return anchorsOf(readFileSync(target, "utf8")).has(fragment) ? [] : [`${link}: no such heading`];
  });
}

const PAGES = readdirSync(join(REPO, "docs"))
  .filter((name) => name.endsWith(".md"))
  .map((name) => join(REPO, "docs", name));

/** The pages above, and the READMEs of the packages, apps and images, which link into docs/ too. */
const DOCS = [
  join(REPO, "README.md"),
  ...PAGES,
  join(REPO, "images", "README.md"),
  ...["packages", "apps"].flatMap((folder) =>
    readdirSync(join(REPO, folder))
      .map((name) => join(REPO, folder, name, "README.md"))
      .filter((file) => existsSync(file)),
  ),
];

describe("the documentation's links", () => {
  it.each(DOCS.map((file) => [relative(REPO, file), file]))("%s: every relative link resolves", (_, file) => {
    expect(brokenLinks(file)).toEqual([]);
  });

  it("reach every page of docs/ from the README in one click", () => {
    const linked = new Set(
      linksOf(readFileSync(join(REPO, "README.md"), "utf8")).map((link) => link.split("#")[0]),
    );
    const pages = PAGES.map((file) => relative(REPO, file));
    expect(pages.filter((page) => !linked.has(page))).toEqual([]);
  });
});

describe("the link checks", () => {
  it("read anchors as GitHub makes them", () => {
    expect(anchorOf("Reason codes (`grade`)")).toBe("reason-codes-grade");
    expect(anchorOf("`oracle-grade --batch`")).toBe("oracle-grade---batch");
    expect(anchorOf("Layer 1 — the diff, on the host (before anything runs)")).toBe(
      "layer-1--the-diff-on-the-host-before-anything-runs",
    );
    expect([...anchorsOf("# A\n## A\n```\n# B\n```\n")]).toEqual(["a", "a-1"]);
  });

  it("find links outside code only", () => {
    expect(linksOf('[a](x.md#y) `[b](z.md)`\n```\n[c](w.md)\n```\n[f](g.md "t")')).toEqual([
      "x.md#y",
      "g.md",
    ]);
  });
});
