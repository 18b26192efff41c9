"""The HTML report: one self-contained file (no network) that opens from disk.

A coloured domain x platform grid, filters by domain, platform, tag, status and
text, a case list rendered a page at a time (usable at 10,000 cases), and for
the chosen case its description, clauses, input, expected output, each platform's
actual output and a readable diff (each differing pointer, and a line diff of the
pretty-printed JSON). Clusters touching a security-relevant clause are listed first
and marked; the clauses that depart from HIP-301 (or fill a gap in it) are listed with
why, and a case on one says so. The results are embedded as JSON; the page's script
renders them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..judge.clusters import clusters
from ..judge.keys import case_key
from ..judge.marks import ClauseMarks, tally_of
from ..vectors.clauses import SECURITY
from . import skips

# Per embedded value; the page shows the elided size. Keeps a report of 10,000 cases
# with a runaway output loadable.
MAX_EMBEDDED_CHARS = 20_000


def _capped(value: Any) -> Any:
    text = json.dumps(value, ensure_ascii=False)
    if len(text) <= MAX_EMBEDDED_CHARS:
        return value
    return {"$elided": text[:MAX_EMBEDDED_CHARS], "$size": len(text)}


def page_data(doc: Mapping[str, Any]) -> dict[str, Any]:
    """What the page needs, with passing results' outputs left out (they equal the expected)."""
    results = []
    for r in doc["results"]:
        slim = {k: r[k] for k in ("domain", "case", "platform", "status") if k in r}
        for key in ("message", "detail", "variant", "expectation", "absent"):
            if key in r:
                slim[key] = r[key]
        if r["status"] != "pass":
            if "actual" in r:
                slim["actual"] = _capped(r["actual"])
            slim["diff"] = [
                {k: _capped(v) if k in ("expected", "actual") else v for k, v in d.items()}
                for d in r.get("diff", ())[:200]
            ]
            slim["schema_errors"] = list(r.get("schema_errors", ()))[:50]
        results.append(slim)
    cases = {}
    for key, info in doc.get("cases", {}).items():
        cases[key] = {k: _capped(v) if k in ("input", "expected") else v for k, v in info.items()}
    for r in doc["results"]:  # a results file without case records still lists its cases
        cases.setdefault(case_key(r["domain"], r["case"]), {"description": "", "clauses": []})
    marks = ClauseMarks.from_summary(doc["summary"])
    for key, info in cases.items():
        notes = marks.notes(key.rpartition("::")[0], info.get("clauses", ()))
        if notes:
            info["marks"] = list(notes)
    summary = {k: v for k, v in doc["summary"].items() if k not in ("matrix", "clusters")}
    summary.update(skips.groups(doc))  # a file from before the groups: made from its results
    touched = tally_of(doc["results"], doc.get("cases"), marks)
    causes = []
    for c in touched.ordered(clusters(doc["results"], doc.get("cases"))):
        cause = {**touched.to_json(c), "members": c.cases, "notes": touched.notes(c)}
        if c.reproducer is not None:  # bounded as the page's other values are
            cause["reproducer"] = {
                k: v if k == "case" else _capped(v) for k, v in c.reproducer.items()
            }
        causes.append(cause)
    return {
        "summary": summary,
        "matrix": doc["summary"]["matrix"],
        "results": results,
        "cases": cases,
        "clusters": causes,
        "marked": _marked(doc, cases),
    }


def _marked(doc: Mapping[str, Any], cases: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Each marked clause of the run's domains, with the cases citing it that diverged."""
    diverged = {
        case_key(r["domain"], r["case"])
        for r in doc["results"]
        if r["status"] in ("fail", "error", "xfail")
    }
    listed = []
    for key, markers in doc["summary"].get("marked_clauses", {}).items():
        domain, _, clause = key.rpartition("::")
        citing = [
            k
            for k, info in cases.items()
            if k in diverged
            and k.rpartition("::")[0] == domain
            and clause in info.get("clauses", ())
        ]
        listed.append(
            {
                "domain": domain,
                "clause": clause,
                "markers": markers,
                "security": any(m["kind"] == SECURITY for m in markers),
                "diverged": citing,
            }
        )
    return listed


def render_html(doc: Mapping[str, Any]) -> str:
    data = json.dumps(page_data(doc), ensure_ascii=True, separators=(",", ":"))
    # Inside <script>, "</script" ends the element and "<!--" changes how it is parsed:
    # every "<" as \u003c, which JSON reads as "<" (ensure_ascii leaves no other "<").
    data = data.replace("<", "\\u003c")
    return _PAGE.replace("/*DATA*/", data)


_PAGE = r"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>hanzo-conformance report</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1d1d1f;background:#fafafa}
header{padding:12px 20px;background:#24292f;color:#fff}
header h1{font-size:18px;margin:0 0 4px}
main{display:grid;grid-template-columns:minmax(360px,40%) 1fr;gap:0;height:calc(100vh - 70px)}
#left{overflow:auto;padding:12px 16px;border-right:1px solid #ddd}
#detail{overflow:auto;padding:12px 20px}
table.grid{border-collapse:collapse;margin-bottom:12px}
table.grid td,table.grid th{border:1px solid #ccc;padding:4px 8px;text-align:center}
table.grid td{cursor:pointer}
.ok{background:#d7f5dd}.bad{background:#ffd6d6}.xf{background:#fff1c2}.skip{background:#eee}
.filters{display:flex;flex-wrap:wrap;gap:6px;margin-bottom:8px}
.filters select,.filters input{padding:3px}
ul#cases{list-style:none;padding:0;margin:0}
ul#cases li{padding:4px 6px;border-bottom:1px solid #eee;cursor:pointer}
ul#cases li:hover,ul#cases li.sel{background:#e8f0fe}
.badge{display:inline-block;padding:0 5px;border-radius:3px;font-size:12px;margin-right:3px}
.s-pass{background:#2da44e;color:#fff}.s-fail{background:#cf222e;color:#fff}
.s-error{background:#8250df;color:#fff}.s-xfail{background:#d4a72c;color:#000}
.s-skip,.s-not_run{background:#8c959f;color:#fff}.s-partial{background:#54aeff;color:#000}
.part{background:#ddf4ff}
pre{background:#f6f8fa;border:1px solid #ddd;padding:8px;overflow:auto;max-height:320px;
white-space:pre-wrap;word-break:break-all}
.diffline-del{background:#ffebe9;display:block}.diffline-add{background:#dafbe1;display:block}
td.del{background:#ffebe9;font-family:monospace}td.add{background:#dafbe1;font-family:monospace}
table.ptr{border-collapse:collapse;width:100%}
table.ptr td,table.ptr th{border:1px solid #ddd;padding:3px 6px;vertical-align:top;text-align:left}
.muted{color:#57606a}
.security{background:#cf222e;color:#fff}.hip{background:#0969da;color:#fff}
tr.sec td{background:#fff0f0}
p.mark{margin:2px 0;padding:2px 6px;border-left:3px solid #0969da}
p.mark.sec{border-left-color:#cf222e}
button{padding:3px 8px}
</style></head>
<body>
<header><h1>hanzo-conformance parity report</h1><div id="verdict"></div></header>
<main>
<section id="left">
  <table class="grid" id="grid"></table>
  <div id="gate"></div>
  <details id="causes-box" open><summary>divergences by cause</summary><table class="ptr" id="causes"></table></details>
  <details id="marked-box"><summary>clauses that depart from HIP-301 or are security-relevant</summary><table class="ptr" id="marked"></table></details>
  <div class="filters">
    <select id="f-domain"><option value="">every domain</option></select>
    <select id="f-platform"><option value="">every platform</option></select>
    <select id="f-tag"><option value="">every tag</option></select>
    <select id="f-status"><option value="">every status</option>
      <option value="diverged" selected>diverged (fail, error, xfail)</option>
      <option>pass</option><option>partial</option><option>fail</option><option>error</option><option>xfail</option>
      <option>skip</option><option>not_run</option></select>
    <input id="f-text" placeholder="case id or text" size="16">
  </div>
  <div id="count" class="muted"></div>
  <ul id="cases"></ul>
  <button id="more" hidden>show more</button>
</section>
<section id="detail"><p class="muted">Choose a case on the left.</p></section>
</main>
<script id="data" type="application/json">/*DATA*/</script>
<script>
"use strict";
const D = JSON.parse(document.getElementById("data").textContent);
const PAGE = 200;
const $ = (id) => document.getElementById(id);
const el = (tag, attrs, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v; else if (k.startsWith("on")) e[k] = v; else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k instanceof Node ? k : document.createTextNode(String(k)));
  return e;
};
// Invisible and confusable characters are shown escaped, as in the text report.
const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u00a0\u00ad\u061c\u115f\u1160\u17b4\u17b5\u180e\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\u3164\ufe00-\ufe0f\ufeff\ufff0-\ufffb]/g;
const esc = (s) => s.replace(HIDDEN, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
const show = (v) => {
  if (v && typeof v === "object" && "$elided" in v) return esc(v["$elided"]) + "\n… (" + v["$size"] + " characters in all, elided)";
  return esc(JSON.stringify(v, null, 2));
};
const byCase = new Map();
for (const r of D.results) {
  const key = r.domain + "::" + r.case;
  if (!byCase.has(key)) byCase.set(key, []);
  byCase.get(key).push(r);
}
const platforms = Object.keys(D.summary.platforms);
const domains = Object.keys(D.matrix);
const tags = [...new Set(Object.values(D.cases).flatMap((c) => c.tags || []))].sort();
for (const [id, values] of [["f-domain", domains], ["f-platform", platforms], ["f-tag", tags]])
  for (const v of values) $(id).append(el("option", {value: v}, v));

const s = D.summary;
const problems = (s.expectations && s.expectations.problems) || [];
$("verdict").textContent = (s.not_run ? "INTERRUPTED" : s.diverged ? "DIVERGED" : problems.length ? "GATE FAILED" : s.partial_unrecorded ? "PARTIAL" : "OK") +
  ": " + s.total + " results: " + ["pass", "partial", "fail", "error", "xfail", "skip"].map((k) => (s[k] || 0) + " " + k).join(", ") +
  (s.not_run ? ", " + s.not_run + " not run" : "") +
  (s.run ? " · vectors " + s.run.vectors.version : "") +
  (s.run && s.run.isolation ? " · isolation: " + s.run.isolation : "");

function gridClass(c) {
  if ((c.fail || 0) + (c.error || 0)) return "bad";
  if (c.xfail) return "xf";
  if (c.partial) return "part";
  if (!c.pass && c.skip) return "skip";
  return "ok";
}
function renderGrid() {
  const g = $("grid");
  g.append(el("tr", {}, el("th", {}, "domain"), ...platforms.map((p) => el("th", {}, p))));
  for (const d of domains) {
    const row = el("tr", {}, el("th", {}, d));
    for (const p of platforms) {
      const c = D.matrix[d][p] || {};
      const ran = (c.pass || 0) + (c.partial || 0) + (c.fail || 0) + (c.error || 0) + (c.xfail || 0);
      const bad = ["partial", "fail", "error", "xfail", "not_run"].filter((k) => c[k]).map((k) => c[k] + " " + k).join(", ");
      const text = ran || c.not_run ? (c.pass || 0) + "/" + (ran + (c.not_run || 0)) + (bad ? " (" + bad + ")" : "") : (D.summary.platforms[p].domains || []).includes(d) ? "not applicable" : "not implemented";
      row.append(el("td", {class: gridClass(c), title: "show " + d + " on " + p,
        onclick: () => { causeFilter = null; $("f-domain").value = d; $("f-platform").value = p; $("f-status").value = ""; apply(); }}, text));
    }
    g.append(row);
  }
}

let matching = [], shown = 0, selected = null;
function caseMatches(key, rs) {
  const dom = $("f-domain").value, plat = $("f-platform").value, tag = $("f-tag").value;
  const st = $("f-status").value, text = $("f-text").value.toLowerCase();
  const info = D.cases[key] || {};
  if (causeFilter && !causeFilter.has(key)) return false;
  if (dom && rs[0].domain !== dom) return false;
  if (tag && !(info.tags || []).includes(tag)) return false;
  if (text && !(key.toLowerCase().includes(text) || (info.description || "").toLowerCase().includes(text))) return false;
  const pick = plat ? rs.filter((r) => r.platform === plat) : rs;
  if (!pick.length) return false;
  if (st === "diverged") return pick.some((r) => r.status === "fail" || r.status === "error" || r.status === "xfail");
  return !st || pick.some((r) => r.status === st);
}
function apply() {
  matching = [...byCase.entries()].filter(([k, rs]) => caseMatches(k, rs));
  shown = 0;
  $("cases").replaceChildren();
  $("count").textContent = matching.length + " of " + byCase.size + " cases";
  more();
}
function more() {
  const next = matching.slice(shown, shown + PAGE);
  for (const [key, rs] of next) {
    const li = el("li", {"data-case": key, onclick: () => select(key, li)},
      ...rs.map((r) => el("span", {class: "badge s-" + r.status, title: r.platform + ": " + r.status}, r.platform)), key);
    $("cases").append(li);
  }
  shown += next.length;
  $("more").hidden = shown >= matching.length;
}
$("more").onclick = more;
// Choosing a filter by hand drops a cause chosen in the table.
for (const id of ["f-domain", "f-platform", "f-tag", "f-status"]) $(id).onchange = () => { causeFilter = null; apply(); };
$("f-text").oninput = () => { causeFilter = null; apply(); };

// A line diff (LCS) of two pretty-printed values; past a size, the pointer table suffices.
function lineDiff(a, b) {
  const x = a.split("\n"), y = b.split("\n");
  if (x.length * y.length > 400000) return null;
  const n = x.length, m = y.length, L = Array.from({length: n + 1}, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--)
    L[i][j] = x[i] === y[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
  const out = el("pre", {class: "linediff"});
  let i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] === y[j]) { out.append("  " + x[i] + "\n"); i++; j++; }
    else if (j < m && (i >= n || L[i][j + 1] >= L[i + 1][j])) { out.append(el("span", {class: "diffline-add"}, "+ " + y[j])); j++; }
    else { out.append(el("span", {class: "diffline-del"}, "- " + x[i])); i++; }
  }
  return out;
}
function expectedOf(info) { return "error" in info ? {error: info.error} : info.expected; }
function actualOf(r, info) {
  if (!("actual" in r)) return undefined;
  if ("error" in info || (r.actual && typeof r.actual === "object" && "error" in r.actual && Object.keys(r.actual).length === 1))
    return r.actual && r.actual.error && r.actual.error.code ? {error: r.actual.error.code} : r.actual;
  return r.actual;
}
function select(key, li) {
  if (selected) selected.classList.remove("sel");
  selected = li; if (li) li.classList.add("sel");
  const info = D.cases[key] || {};
  const rs = byCase.get(key);
  const box = $("detail");
  box.replaceChildren(el("h2", {}, key));
  if (info.description) box.append(el("p", {}, esc(info.description)));
  if (info.clauses && info.clauses.length) box.append(el("p", {class: "muted"}, "clauses: " + info.clauses.join(", ") + (info.tags && info.tags.length ? " · tags: " + info.tags.join(", ") : "")));
  for (const m of info.marks || []) box.append(el("p", {class: "mark" + (m.includes(" security-relevant: ") ? " sec" : "")}, esc(m)));
  if ("input" in info) box.append(el("h3", {}, "input"), el("pre", {}, show(info.input)));
  const expected = expectedOf(info);
  if (expected !== undefined) box.append(el("h3", {}, "expected"), el("pre", {class: "expected"}, show(expected)));
  for (const r of rs) {
    const sec = el("section", {class: "platform", "data-platform": r.platform, "data-status": r.status});
    sec.append(el("h3", {}, el("span", {class: "badge s-" + r.status}, r.status), r.platform));
    if (r.expectation) sec.append(el("p", {class: "muted"}, "expected by the ledger: " + r.expectation.reason));
    if (r.message) sec.append(el("p", {}, esc(r.message)));
    if (r.absent) sec.append(el("p", {class: "absent"}, "not compared (declared absent): " + r.absent.map(esc).join(", ") +
      (r.status === "partial" ? "; the fields it has match: partial, never a pass" : "")));
    if (r.status === "pass") { sec.append(el("p", {class: "muted"}, "output equals the expected output")); box.append(sec); continue; }
    const actual = actualOf(r, info);
    if (r.diff && r.diff.length) {
      const t = el("table", {class: "ptr diff"}, el("tr", {}, el("th", {}, "pointer"), el("th", {}, "expected"), el("th", {}, "actual"), el("th", {}, "chunking")));
      // The same difference on several chunkings is one row listing them, as in the text report.
      const groups = new Map();
      for (const d of r.diff) {
        const k = JSON.stringify([d.pointer, d.expected, d.actual, "expected" in d, "actual" in d]);
        if (!groups.has(k)) groups.set(k, [d, []]);
        groups.get(k)[1].push(d.variant || "original");
      }
      for (const [d, variants] of groups.values()) {
        const listed = variants.slice(0, 6).join(", ") + (variants.length > 6 ? ", … (" + variants.length + " in all)" : "");
        t.append(el("tr", {}, el("td", {}, d.pointer || "(whole output)"),
          el("td", {class: "del"}, "expected" in d ? show(d.expected) : "(absent)"),
          el("td", {class: "add"}, "actual" in d ? show(d.actual) : "(absent)"), el("td", {}, listed)));
      }
      sec.append(el("h4", {}, "diff"), t);
      if (actual !== undefined && expected !== undefined) {
        const ld = lineDiff(show(expected), show(actual));
        if (ld) sec.append(el("h4", {}, "expected (-) and actual (+), line by line"), ld);
      }
    }
    if (actual !== undefined) sec.append(el("details", {}, el("summary", {}, "actual output"), el("pre", {class: "actual"}, show(actual))));
    for (const e of r.schema_errors || []) sec.append(el("p", {}, (e.rule === "i-json" ? "not I-JSON: " : "output schema: ") + (e.pointer || "(root)") + ": " + esc(e.message)));
    if (r.detail) sec.append(el("h4", {}, "detail"), el("pre", {}, esc(r.detail)));
    box.append(sec);
  }
}
let causeFilter = null;
function renderGate() {
  const box = $("gate");
  const plats = Object.entries(D.summary.platforms).map(([n, i]) => n + ": " + (i.failure ? "unavailable" :
    i.implementation + " " + i.version + (i.commit ? " @" + i.commit.slice(0, 12) : ""))).join(" · ");
  box.append(el("p", {class: "muted"}, plats));
  // What went wrong with a platform as a whole: stderr of a failed start, the cutoff, stray lines.
  const whole = el("ul", {class: "problems"});
  for (const [n, i] of Object.entries(D.summary.platforms)) {
    if (i.failure) whole.append(el("li", {}, n + ": UNAVAILABLE: " + esc(i.failure), ...(i.detail ? [el("pre", {}, esc(i.detail))] : [])));
    if (i.broken) whole.append(el("li", {}, n + ": BROKEN: " + esc(i.broken)));
    for (const p of i.problems || []) whole.append(el("li", {}, n + ": PROBLEM (" + p.kind + "): " + esc(p.message), el("pre", {}, esc(p.detail))));
  }
  if (whole.children.length) box.append(el("h3", {}, "platform problems"), whole);
  if (problems.length) {
    const ul = el("ul", {class: "problems"});
    for (const p of problems) ul.append(el("li", {}, p.kind.toUpperCase() + ": " + esc(p.message)));
    box.append(el("h3", {}, "expectations ledger problems"), ul);
  }
  // Why cases were not compared, grouped: skip reasons, then the fields partial answers lack.
  for (const [kind, title] of [["skips", "skipped, by reason"], ["partials", "partial answers (fields declared absent, not compared)"]]) {
    const groups = s[kind] || [];
    if (!groups.length) continue;
    const t = el("table", {class: "ptr " + kind}, el("tr", {}, el("th", {}, "platform"), el("th", {}, "domain"), el("th", {}, "cases"),
      el("th", {}, kind === "skips" ? "reason" : "not compared"), el("th", {}, "e.g.")));
    for (const g of groups) t.append(el("tr", {}, el("td", {}, g.platform), el("td", {}, g.domain), el("td", {}, g.count),
      el("td", {}, esc(kind === "skips" ? g.reason : g.absent.join(", "))), el("td", {}, g.cases.join(", "))));
    box.append(el("h3", {}, title), t);
  }
  if (s.triage && s.triage.length) {
    const ul = el("ul", {class: "triage"});
    for (const t of s.triage) ul.append(el("li", {}, t.domain + "::" + t.case + ": " + t.message));
    box.append(el("h3", {}, "triage: suspect the vector or the reference"), ul);
  }
  renderMarked();
  const t = $("causes");
  if (!D.clusters.length) { $("causes-box").hidden = true; return; }
  t.append(el("tr", {}, el("th", {}, "platform"), el("th", {}, "cases"), el("th", {}, "where"), el("th", {}, "kind"), el("th", {}, "clauses")));
  // Security-relevant clusters come first (the page data is ordered so) and are marked.
  for (const c of D.clusters) {
    const flags = [...(c.security ? [el("span", {class: "badge security", title: (c.notes || []).join("\n")}, "security " + c.security.join(", "))] : []),
      ...(c.hip301 ? [el("span", {class: "badge hip", title: "departs from or fills a gap in HIP-301"}, "HIP-301 " + c.hip301.join(", "))] : [])];
    t.append(el("tr", {class: "cause" + (c.security ? " sec" : ""), title: "show these cases", style: "cursor:pointer",
      onclick: () => { causeFilter = new Set(c.members); $("f-platform").value = c.platform; $("f-status").value = ""; apply(); }},
      el("td", {}, c.platform), el("td", {}, c.cases), el("td", {}, c.pattern || "(whole output)"), el("td", {}, ...flags, c.kind),
      el("td", {}, c.clauses.slice(0, 6).join(", ") + (c.clauses.length > 6 ? ", …" : "")
        + (c.also_cited.length ? " (also cited by some cases: " + c.also_cited.join(", ") + ")" : ""))));
    const r = c.reproducer;
    if (r) {
      const box = el("details", {}, el("summary", {}, "smallest case: " + r.case));
      for (const part of ["input", "expected", "actual"])
        if (part in r) box.append(el("h4", {}, part), el("pre", {}, show(r[part])));
      t.append(el("tr", {class: "reproducer"}, el("td", {colspan: "5"}, box)));
    }
  }
}
// Every marked clause of the run's domains: how it departs from HIP-301 (or fills a gap
// in it, or why it is security-relevant), and the cases citing it that diverged.
function renderMarked() {
  const t = $("marked");
  if (!D.marked.length) { $("marked-box").hidden = true; return; }
  if (D.marked.some((m) => m.diverged.length)) $("marked-box").open = true;
  t.append(el("tr", {}, el("th", {}, "clause"), el("th", {}, "marker"), el("th", {}, "HIP-301"), el("th", {}, "why"), el("th", {}, "diverged")));
  for (const m of D.marked) for (const k of m.markers) {
    const hip = k.kind === "security" ? "" : ["HIP-301", k.section || "", k.quote ? "\u201c" + k.quote + "\u201d" : ""].join(" ").trim();
    const row = el("tr", {class: "marked" + (k.kind === "security" ? " sec" : ""), "data-clause": m.domain + "::" + m.clause},
      el("td", {}, m.domain + " " + m.clause), el("td", {}, k.kind), el("td", {}, hip), el("td", {}, esc(k.reason)),
      el("td", {}, m.diverged.length ? m.diverged.length + " case" + (m.diverged.length > 1 ? "s" : "") : "-"));
    if (m.diverged.length) {
      row.style.cursor = "pointer"; row.title = "show these cases";
      row.onclick = () => { causeFilter = new Set(m.diverged); $("f-platform").value = ""; $("f-status").value = ""; apply(); };
    }
    t.append(row);
  }
}
renderGrid();
renderGate();
apply();
</script>
</body></html>
"""
