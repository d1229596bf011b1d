// Planner-level (red team round 3): can the code under test tell a twin's copy from its original by the
// planted text alone? Plans twins (file new at the fix, keyed by a random key) for every file listed in
// LIST and guesses each pair with a text-only heuristic. Run after `pnpm build`:
//   find <site-packages>/{sympy,networkx,numpy,scipy,libcst,trio,mpmath,IPython,jsonschema} -name "test_*.py" > LIST
//   node scripts/redteam/twin-tell.mjs LIST 2 prior      (strategies: count, count+round, count+prior, prior)

import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { keyedDraw, pythonTwins } from "../../packages/grader/dist/sentinel-twins.js";

const files = readFileSync(process.argv[2], "utf8").trim().split("\n");
const KEYS = Number(process.argv[3] ?? 3);
const strategy = process.argv[4] ?? "count";
let skipped = 0;
let twins = 0,
  right = 0,
  filesWith = 0,
  filesAllRight = 0,
  expectAll = 0,
  tieTwins = 0;
const byKind = {};
function funcLines(text, name) {
  const lines = text.split("\n");
  const i = lines.findIndex((l) => new RegExp(`^\\s*def ${name}\\(`).test(l));
  const indent = /^\s*/.exec(lines[i])[0].length;
  const out = [];
  for (let j = i + 1; j < lines.length; j++) {
    const l = lines[j];
    if (l.trim() !== "" && /^\s*/.exec(l)[0].length <= indent) break;
    out.push(l);
  }
  return out;
}
const tokenCount = (text, v) => {
  const esc = v.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const re = /^["']/.test(v) ? new RegExp(esc, "g") : new RegExp(`(?<![\\w.])${esc}(?![\\w]|\\.\\d)`, "g");
  return (text.match(re) ?? []).length;
};
const round = (v) => {
  if (!/^-?\d+(\.\d+)?$/.test(v)) return 0;
  const n = Math.abs(Number(v));
  if (n === 0) return 5;
  if (n === 1) return 4;
  let s = 0;
  let m = n;
  while (Number.isInteger(m) && m % 10 === 0 && m > 0) {
    s++;
    m /= 10;
  }
  if (n % 5 === 0) s += 0.5;
  return s + (n <= 10 ? 0.2 : 0) - String(v).length * 0.01;
};
const prior = new Map();
for (const path of files) {
  let t;
  try {
    t = readFileSync(path, "utf8");
  } catch {
    continue;
  }
  for (const m of t.matchAll(/==\s*(-?\d+(?:\.\d+)?)\b/g)) prior.set(m[1], (prior.get(m[1]) ?? 0) + 1);
}
for (const path of files) {
  let text;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    continue;
  }
  const own = new Map();
  for (const m of text.matchAll(/==\s*(-?\d+(?:\.\d+)?)\b/g)) own.set(m[1], (own.get(m[1]) ?? 0) + 1);
  const P = (v) => (prior.get(v) ?? 0) - (own.get(v) ?? 0);
  for (let k = 0; k < KEYS; k++) {
    const plan = pythonTwins(text, { base: "", draw: keyedDraw(randomBytes(16).toString("hex")) });
    if (!plan) break;
    filesWith++;
    let all = true;
    for (const w of plan.twins) {
      const A = funcLines(plan.text, w.renamed),
        B = funcLines(plan.text, w.copy);
      const at = A.findIndex((l, i) => l !== B[i]);
      if (at < 0 || A.length !== B.length) {
        skipped++;
        continue;
      }
      // the literal that differs: compare token-wise
      const ta = A[at].match(/-?\d+(?:\.\d+)?|"[^"]*"|'[^']*'|True|False/g) ?? [];
      const tb = B[at].match(/-?\d+(?:\.\d+)?|"[^"]*"|'[^']*'|True|False/g) ?? [];
      const d = ta.findIndex((t, i) => t !== tb[i]);
      const a = ta[d],
        b = tb[d];
      if (a === undefined || b === undefined) continue;
      const kind = /^["']/.test(a) ? "string" : /True|False/.test(a) ? "bool" : "number";
      twins++;
      // attacker's score: occurrences in the whole planted file (the two spots cancel out), then roundness
      const rest = plan.text;
      let sa = tokenCount(rest, a),
        sb = tokenCount(rest, b);
      if (strategy === "count+round" && sa === sb) {
        sa = round(a);
        sb = round(b);
      }
      if (strategy === "count+prior" && sa === sb) {
        sa = P(a);
        sb = P(b);
      }
      if (strategy === "prior") {
        sa = P(a);
        sb = P(b);
      }
      let guessA;
      if (sa === sb) {
        tieTwins++;
        guessA = Math.random() < 0.5;
      } else guessA = sa > sb;
      const ok = guessA; // A is the renamed original
      byKind[kind] ??= { n: 0, right: 0, tie: 0 };
      byKind[kind].n++;
      if (ok) byKind[kind].right++;
      if (sa === sb) byKind[kind].tie++;
      if (ok) right++;
      else all = false;
    }
    if (all) filesAllRight++;
    expectAll += 2 ** -plan.twins.length;
  }
}
console.log(
  JSON.stringify({
    strategy,
    files: files.length,
    plansWithTwins: filesWith,
    twins,
    perTwinAccuracy: (right / twins).toFixed(3),
    ties: tieTwins,
    byKind,
    skippedParamTwins: skipped,
    plansAllTwinsGuessed: filesAllRight,
    plansAllTwinsByCoin: expectAll.toFixed(1),
  }),
);
