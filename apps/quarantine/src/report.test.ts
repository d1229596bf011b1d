import { describe, expect, it } from "vitest";
import { escapeHtml } from "./chart.js";
import { renderHtml } from "./report-html.js";
import { escapeMarkdown, renderMarkdown } from "./report-md.js";
import { record } from "./testing/fake-grade.js";
import type { SweepReport, TaskReport } from "./types.js";

const evil = `<script>alert("x")</script> & | *bold* ' \n`;

function task(partial: Partial<TaskReport> & Pick<TaskReport, "id" | "status">): TaskReport {
  return {
    reasons: [],
    infra: { failedRuns: 0, retries: 0, messages: [], logs: [] },
    wasQuarantined: false,
    change: "none",
    firstSeen: null,
    hasGold: false,
    unprotected: false,
    expected: "not recorded: no gold run",
    runs: [record({ mode: "baseline", log: `logs/sweep/s/runs/${partial.id}/baseline-1.jsonl` })],
    runMs: 1500,
    ...partial,
  };
}

const report: SweepReport = {
  version: 1,
  root: "/work/root",
  startedAt: "2026-12-01T00:00:00.000Z",
  finishedAt: "2026-12-01T00:01:00.000Z",
  durationMs: 60_000,
  options: { tasks: [], repeat: 1, concurrency: 2, infraRetries: 2 },
  counts: {
    tasks: 5,
    healthy: 3,
    quarantined: 1,
    infraError: 1,
    newlyQuarantined: 1,
    released: 0,
    runs: 3,
    infraRetries: 2,
    flags: { GOLD_FAILS: 1 },
  },
  newlyQuarantined: ["bad"],
  released: [],
  removed: [],
  quarantineFile: "tasks/quarantine.json",
  reportDir: "/work/root/sweep-report",
  sweepLog: "logs/sweep/s/sweep.jsonl",
  tasks: [
    task({
      id: "bad",
      status: "quarantined",
      change: "new",
      reasons: [{ flag: "GOLD_FAILS", message: evil, evidence: [] }],
    }),
    task({ id: "good", status: "healthy" }),
    task({
      id: "loop-ftp",
      status: "healthy",
      seals: { failToPass: 2, sealed: 1, unsealed: ["tests/test_x.py::test_loop"], recorded: "recorded" },
    }),
    task({
      id: "shaky engine",
      status: "infra-error",
      infra: { failedRuns: 1, retries: 2, messages: [evil], logs: [] },
    }),
  ],
};

describe("renderHtml", () => {
  const html = renderHtml(report);

  it("escapes everything it interpolates", () => {
    expect(html).not.toContain("<script");
    expect(html).toContain("&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; &#38; | *bold* &#39;");
  });

  it("is self-contained: no script, no external resource", () => {
    expect(html).not.toMatch(/<(script|link|img|iframe)\b/i);
    expect(html.match(/(src|href)="(https?:)?\/\//g)).toBeNull();
    expect(html).toContain("Content-Security-Policy");
  });

  it("has one table row per task with its status, and relative links to the logs", () => {
    expect(html.match(/<tr class="[a-z-]+" data-task=/g)).toHaveLength(4);
    expect(html).toContain('data-task="bad" data-status="quarantined" data-flags="GOLD_FAILS"');
    expect(html).toContain('href="../logs/sweep/s/runs/shaky%20engine/baseline-1.jsonl"');
    expect(html).toContain("<svg");
  });
});

describe("terminal and report safety", () => {
  it("writes controls, bidi and zero-width characters of a test id or message as escapes", () => {
    const hostile = "\u001b]0;oracle: PASS\u0007p\u009b2J\u202e\nverdict: PASS" + "\u200b";
    for (const text of [escapeMarkdown(hostile), escapeHtml(hostile)]) {
      expect(text).not.toMatch(
        /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/,
      );
      expect(text).toContain("202e"); // shown as an escape (Markdown escapes its backslash and braces)
    }
  });
});

describe("hints in the reports", () => {
  it("carry the sweep's root in every command they name, so a copied command works from anywhere", () => {
    const hinted: SweepReport = {
      ...report,
      root: "/srv/oracle root",
      tasks: [
        task({
          id: "bad",
          status: "quarantined",
          change: "new",
          reasons: [
            {
              flag: "GOLD_FAILS",
              message: "m",
              hint: "read the log, then pnpm grade bad --baseline",
              evidence: [],
            },
          ],
        }),
      ],
    };
    expect(renderMarkdown(hinted)).toContain("pnpm grade --root '/srv/oracle root' bad --baseline");
    expect(renderHtml(hinted)).toContain("pnpm grade --root &#39;/srv/oracle root&#39; bad --baseline");
  });
});

describe("renderMarkdown", () => {
  it("escapes table cells and lists the newly quarantined", () => {
    expect(escapeMarkdown(evil)).toBe(`\\<script\\>alert\\("x"\\)\\</script\\> &amp; \\| \\*bold\\* '  `);
    const md = renderMarkdown(report);
    expect(md).toContain("# Quarantine sweep: 1 of 5 tasks quarantined, 1 new, 0 released");
    expect(md).toMatch(/## Newly quarantined\n\n- bad: `GOLD_FAILS`: \\<script/);
    expect(md).toContain(
      "| bad | **quarantined** | new | `GOLD_FAILS` | existing PASS, hidden FAIL ×1 | no gold.diff | 1.5 s |",
    );
    expect(md).toContain("## Infra errors");
    expect(md).toMatch(
      /## Sealed FAIL_TO_PASS tests[^\n]*\n\n- loop-ftp: 1\/2 sealed; not sealed: tests\/test\\_x.py::test\\_loop \(recorded\)/,
    );
    expect(renderHtml(report)).toContain(
      "<b>sealed</b>: 1/2 FAIL_TO_PASS; not sealed: tests/test_x.py::test_loop",
    );
    for (const line of md.split("\n").filter((l) => l.startsWith("| "))) {
      expect(line.split(/(?<!\\)\|/).length, line).toBeGreaterThanOrEqual(3);
    }
  });
});

describe("unsealed FAIL_TO_PASS tests in the reports", () => {
  it("each carries the rule that leaves it so, and the summary counts them per rule", () => {
    const ruled: SweepReport = {
      ...report,
      counts: {
        ...report.counts,
        unsealedByRule: { "unsealed.no-comparison": 1, "unsealed.helper-check": 2 },
      },
      staleSealRecords: ["loop-ftp"],
      tasks: [
        task({
          id: "loop-ftp",
          status: "healthy",
          seals: {
            failToPass: 2,
            sealed: 1,
            unsealed: ["tests/test_x.py::test_loop"],
            rules: { "tests/test_x.py::test_loop": "unsealed.helper-check" },
            recorded: "recorded",
          },
        }),
      ],
    };
    const md = renderMarkdown(ruled);
    expect(md).toContain(
      "- loop-ftp: 1/2 sealed; not sealed: tests/test\\_x.py::test\\_loop \\[unsealed.helper-check\\] (recorded)",
    );
    expect(md).toContain(
      '\nFAIL_TO_PASS tests with no strong seal, by rule (rows of docs/security.md, "Sealed expectations"): unsealed.helper-check 2, unsealed.no-comparison 1',
    );
    expect(md).toContain(
      "\nSwept because their seal record was made for another seal plan (the oracle changed since): loop-ftp\n\n## Tasks",
    );
    expect(renderHtml(ruled)).toContain(
      "not sealed: tests/test_x.py::test_loop [unsealed.helper-check]</li>",
    );
  });
});
