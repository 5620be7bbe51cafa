// The review page: a client of the service's REST API, no framework and no build step.
// Screens (by URL hash, so the browser's back button and links work):
//   #/clusters?title=&company=&source=&since=&until=&min_size=   search clusters
//   #/cluster/ID                                                   a cluster's members
//   #/pair/A/B            two postings side by side, the verdict in words, the label buttons
//   #/review[/N]          the queue of uncertain decisions; N = position being labelled
//   #/stats?interval=&by=&since=&until=   duplicate rate per board over time, board overlap

const KEY_STORAGE = "jobdedup.key";
const view = document.getElementById("view");
const state = { key: sessionStorage.getItem(KEY_STORAGE) || "", queue: null, keyHandler: null };

// ---------------------------------------------------------------------------------------- API

class ApiFailure extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

async function api(path, options = {}) {
  const headers = { Accept: "application/json", ...(options.headers || {}) };
  if (state.key) headers["X-API-Key"] = state.key;
  if (options.body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, {
    method: options.method || "GET",
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  const body = text ? JSON.parse(text) : null;
  if (!response.ok) {
    const message = body && body.error ? body.error.message : `HTTP ${response.status}`;
    if (response.status === 401) askForKey("This service needs an API key.");
    if (response.status === 403) askForKey(message);
    throw new ApiFailure(response.status, message);
  }
  return body;
}

function query(params) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") search.set(name, value);
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

// ------------------------------------------------------------------------------- small helpers

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") node.className = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const svgNs = "http://www.w3.org/2000/svg";
function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS(svgNs, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  for (const child of children.flat()) {
    if (child !== undefined && child !== null) {
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
  }
  return node;
}

const day = (iso) => (iso ? String(iso).slice(0, 10) : "");
const percent = (x) => (x === null || x === undefined ? "–" : `${(100 * x).toFixed(1)}%`);
const fixed = (x, digits = 2) => (x === null || x === undefined ? "–" : Number(x).toFixed(digits));
const encode = encodeURIComponent;

// replaceChildren would print `null` for a screen's optional parts: drop them first.
function show(...nodes) {
  view.replaceChildren(...nodes.flat().filter((node) => node !== null && node !== undefined && node !== false));
}

function toast(message) {
  const node = document.getElementById("toast");
  node.textContent = message;
  node.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { node.hidden = true; }, 2500);
}

function showError(error) {
  show(el("div", { class: "card error", "data-testid": "error" },
    `Could not load this page: ${error.message}`));
}

function parseHash() {
  const hash = location.hash.replace(/^#\/?/, "") || "clusters";
  const [path, search = ""] = hash.split("?");
  const parts = path.split("/").map(decodeURIComponent);
  return { parts, params: Object.fromEntries(new URLSearchParams(search)) };
}

function go(hash) {
  if (location.hash === hash) route(); else location.hash = hash;
}

// ------------------------------------------------------------------------------------ the key

function askForKey(reason) {
  const dialog = document.getElementById("key-dialog");
  const error = document.getElementById("key-error");
  error.textContent = reason || "";
  error.hidden = !reason;
  if (!dialog.open) dialog.showModal();
}

document.getElementById("key-button").addEventListener("click", () => askForKey(""));
document.getElementById("key-dialog").addEventListener("close", (event) => {
  const dialog = event.target;
  if (dialog.returnValue !== "save") return;
  state.key = document.getElementById("key-input").value.trim();
  sessionStorage.setItem(KEY_STORAGE, state.key);
  document.getElementById("key-input").value = "";
  loadModel();
  route();
});

async function loadModel() {
  const node = document.getElementById("model");
  try {
    const ready = await (await fetch("/ready")).json();
    const scorer = ready.scorer || {};
    node.textContent = `model ${scorer.name} ${scorer.version} · threshold ${fixed(scorer.threshold, 3)}`;
    state.threshold = scorer.threshold;
  } catch (error) {
    node.textContent = "model unknown";
  }
}

// --------------------------------------------------------------------------------- clusters

async function showClusters(params) {
  const filters = {
    title: params.title || "", company: params.company || "", source: params.source || "",
    since: params.since || "", until: params.until || "", min_size: params.min_size || "2",
  };
  const field = (name, label, type = "text") => el("label", {}, label,
    el("input", { name, type, value: filters[name], "data-testid": `filter-${name}` }));
  const form = el("form", { class: "filters card", "data-testid": "cluster-search",
    onsubmit: (event) => {
      event.preventDefault();
      const data = Object.fromEntries(new FormData(event.target));
      go(`#/clusters${query(data)}`);
    } },
  field("title", "Title contains"), field("company", "Company"), field("source", "Source"),
  field("since", "Posted since", "date"), field("until", "Posted until", "date"),
  field("min_size", "Min. size", "number"),
  el("button", { type: "submit", class: "primary" }, "Search"));
  const results = el("div", { "data-testid": "cluster-results" }, el("p", { class: "muted" }, "Loading…"));
  show(el("h1", {}, "Clusters"), form, results);

  const pageParams = { ...filters };
  for (const name of ["since", "until"]) {
    if (pageParams[name]) pageParams[name] = `${pageParams[name]}T00:00:00Z`;
  }
  let cursor = params.cursor || "";
  const rows = el("tbody");
  const more = el("button", { type: "button", "data-testid": "more" }, "More");
  const table = el("table", {},
    el("thead", {}, el("tr", {},
      el("th", {}, "Title"), el("th", {}, "Company"), el("th", {}, "First source"),
      el("th", { class: "num" }, "Postings"), el("th", {}, "First seen"), el("th", {}, "Last seen"))),
    rows);

  async function loadPage() {
    const page = await api(`/clusters${query({ ...pageParams, cursor, limit: 50 })}`);
    for (const cluster of page.clusters) {
      rows.append(el("tr", { class: "clickable", "data-testid": "cluster-row",
        onclick: () => go(`#/cluster/${encode(cluster.id)}`) },
      el("td", {}, el("a", { href: `#/cluster/${encode(cluster.id)}` }, cluster.title || cluster.id)),
      el("td", {}, cluster.company || ""), el("td", {}, cluster.source || ""),
      el("td", { class: "num" }, cluster.size),
      el("td", { class: "date" }, day(cluster.first_seen)),
      el("td", { class: "date" }, day(cluster.last_seen))));
    }
    cursor = page.next_cursor || "";
    more.hidden = !cursor;
    return page.clusters.length;
  }
  more.addEventListener("click", () => loadPage().catch(showError));
  try {
    const count = await loadPage();
    results.replaceChildren(count ? table : el("p", { class: "muted" }, "No cluster matches."), more);
  } catch (error) {
    results.replaceChildren(el("p", { class: "error" }, error.message));
  }
}

async function showCluster(id) {
  const cluster = await api(`/clusters/${encode(id)}`);
  const chosen = new Set();
  const compare = el("button", { type: "button", class: "primary", disabled: true,
    "data-testid": "compare", onclick: () => {
      const [a, b] = [...chosen];
      go(`#/pair/${encode(a)}/${encode(b)}`);
    } }, "Compare the two selected");
  const rows = cluster.members.map((member, index) => {
    const box = el("input", { type: "checkbox", "aria-label": `select ${member.id}`,
      onchange: (event) => {
        if (event.target.checked) chosen.add(member.id); else chosen.delete(member.id);
        compare.disabled = chosen.size !== 2;
      } });
    const versus = index === 0 ? el("span", { class: "badge" }, "canonical")
      : el("a", { href: `#/pair/${encode(member.id)}/${encode(cluster.canonical_id)}`,
        "data-testid": "compare-canonical" }, "compare with canonical");
    return el("tr", { "data-testid": "member-row" }, el("td", {}, box), el("td", {}, member.title),
      el("td", {}, member.company || ""), el("td", {}, member.source || ""),
      el("td", { class: "date" }, day(member.posted_at)), el("td", { class: "muted" }, member.id),
      el("td", {}, versus));
  });
  show(
    el("p", {}, el("a", { href: "#/clusters" }, "← Clusters")),
    el("h1", { "data-testid": "cluster-title" }, cluster.members[0] ? cluster.members[0].title : cluster.id),
    el("p", { class: "muted" }, `Cluster ${cluster.id} · ${cluster.size} postings · `,
      `${day(cluster.first_seen)} – ${day(cluster.last_seen)}`,
      cluster.aliases.length ? ` · merged from ${cluster.aliases.slice(0, 5).join(", ")}`
        + (cluster.aliases.length > 5 ? ` and ${cluster.aliases.length - 5} more clusters` : "") : ""),
    el("table", {}, el("thead", {}, el("tr", {}, el("th", {}, ""), el("th", {}, "Title"),
      el("th", {}, "Company"), el("th", {}, "Source"), el("th", {}, "Posted"), el("th", {}, "Id"),
      el("th", {}, ""))), el("tbody", {}, rows)),
    el("p", {}, compare));
}

// -------------------------------------------------------------------------------- pair view

function renderDiff(segments, side) {
  // side "a" shows what only the first text has as <del>, side "b" what only the second has as <ins>.
  const nodes = [];
  for (const segment of segments) {
    const text = segment[side];
    if (!text) continue;
    if (segment.op === "equal") nodes.push(document.createTextNode(text));
    else nodes.push(el(side === "a" ? "del" : "ins", {}, text));
  }
  return nodes;
}

function describeSide(posting, newerId) {
  const doc = posting.posting;
  return el("div", { class: "side card", "data-testid": "side" },
    el("div", { class: "muted" }, posting.id === newerId ? "Later posting" : "Earlier posting"),
    el("h3", {}, doc.title || ""),
    el("div", {}, [doc.company, doc.location].filter(Boolean).join(" · ")),
    el("div", { class: "muted" }, [doc.source, day(posting.posted_at), posting.id].filter(Boolean).join(" · ")),
    el("div", {}, el("a", { href: `#/cluster/${encode(posting.cluster_id || "")}` }, "its cluster")));
}

function verdictCard(explained) {
  const verdict = explained.verdict || explained;
  const contributions = [...(verdict.contributions || [])]
    .sort((x, y) => Math.abs(y.contribution) - Math.abs(x.contribution)).slice(0, 6);
  const reasons = contributions.map((c) => el("li", { class: c.contribution >= 0 ? "up" : "down" },
    `${c.contribution >= 0 ? "▲" : "▼"} ${c.text || c.feature}`,
    el("span", { class: "muted" }, ` (${c.feature} = ${c.value === null ? "unknown" : fixed(c.value)}, `
      + `${c.contribution >= 0 ? "+" : ""}${fixed(c.contribution)})`)));
  return el("div", { class: "card", "data-testid": "verdict" },
    el("div", { class: "verdict" },
      el("span", { class: "score", "data-testid": "score" }, fixed(verdict.probability, 3)),
      el("span", {}, `threshold ${fixed(verdict.threshold, 3)} · `,
        el("strong", {}, verdict.duplicate ? "duplicate" : "not a duplicate"),
        verdict.duplicate_type ? ` (${verdict.duplicate_type})` : "",
        ` · estimated Jaccard ${fixed(verdict.jaccard)} · overlap ${fixed(verdict.overlap)}`),
      el("span", { class: "muted" }, `scorer ${verdict.scorer || ""}`)),
    el("div", { class: "muted" }, "What weighed most:"),
    el("ul", { class: "reasons", "data-testid": "reasons" }, reasons));
}

async function showPair(a, b, review) {
  const explained = await api(`/pairs/explain${query({ a, b })}`);
  const diff = explained.diff;
  const label = el("span", { "data-testid": "current-label" });
  const setLabel = (value) => {
    label.replaceChildren(value
      ? el("span", { class: `badge ${value}` }, value === "duplicate" ? "labelled duplicate" : "labelled not duplicate")
      : el("span", { class: "muted" }, "not labelled"));
  };
  setLabel(explained.label);

  async function store(value) {
    try {
      await api("/feedback", { method: "POST",
        body: { a_id: explained.a.id, b_id: explained.b.id, label: value } });
      setLabel(value);
      toast(value === "duplicate" ? "Labelled duplicate" : "Labelled not duplicate");
      if (review) {
        review.item.label = value;
        nextInQueue(review.position);
      }
    } catch (error) {
      if (!(error instanceof ApiFailure && (error.status === 401 || error.status === 403))) toast(error.message);
    }
  }

  const buttons = el("div", { class: "label-bar", "data-testid": "label-bar" },
    el("button", { type: "button", class: "dup", "data-testid": "label-duplicate",
      onclick: () => store("duplicate") }, "Duplicate ", el("kbd", {}, "D")),
    el("button", { type: "button", class: "notdup", "data-testid": "label-not-duplicate",
      onclick: () => store("not_duplicate") }, "Not duplicate ", el("kbd", {}, "N")),
    review ? el("button", { type: "button", "data-testid": "skip",
      onclick: () => nextInQueue(review.position) }, "Skip ", el("kbd", {}, "S")) : null,
    label,
    review ? el("span", { class: "muted", "data-testid": "review-position" },
      `item ${review.position + 1} of ${review.total}`) : null);

  state.keyHandler = (event) => {
    if (event.target.closest && event.target.closest("input, select, textarea, dialog")) return;
    const key = event.key.toLowerCase();
    if (key === "d") store("duplicate");
    else if (key === "n") store("not_duplicate");
    else if (review && key === "s") nextInQueue(review.position);
  };

  const back = review ? el("a", { href: "#/review" }, "← Review queue")
    : el("a", { href: "javascript:history.back()" }, "← Back");
  show(
    el("p", {}, back),
    el("h1", {}, "Two postings side by side"),
    review ? el("p", { class: "muted", "data-testid": "review-reason" },
      review.item.reason === "single_link_merge"
        ? "This posting alone linked two clusters, which were then merged."
        : "The score is close to the threshold.") : null,
    el("div", { class: "pair-head" }, describeSide(explained.a, explained.newer_id),
      describeSide(explained.b, explained.newer_id)),
    verdictCard(explained),
    el("h2", {}, "Texts, differences highlighted"),
    el("p", { class: "muted" }, "Red: only in the left text. Green: only in the right one."),
    el("div", { class: "diff", "data-testid": "diff" },
      el("div", { class: "text", "data-testid": "diff-a" },
        el("div", { class: "title" }, renderDiff(diff.title.segments, "a")),
        renderDiff(diff.description.segments, "a")),
      el("div", { class: "text", "data-testid": "diff-b" },
        el("div", { class: "title" }, renderDiff(diff.title.segments, "b")),
        renderDiff(diff.description.segments, "b"))),
    diff.title.truncated || diff.description.truncated
      ? el("p", { class: "muted" }, "Long texts: the difference is shown for their beginning only.") : null,
    buttons);
}

// ------------------------------------------------------------------------------ review queue

const QUEUE_PAGE = 200; // pairs fetched at a time; the queue holds up to 2,000

async function loadQueue() {
  const page = await api(`/review${query({ limit: QUEUE_PAGE })}`);
  // Fetch further pages only while every pair fetched so far is labelled.
  while (page.items.every((item) => item.label) && page.items.length < page.total) {
    const more = await api(`/review${query({ limit: QUEUE_PAGE, offset: page.items.length })}`);
    if (!more.items.length) break;
    page.items.push(...more.items);
  }
  state.queue = page;
  return page;
}

function nextInQueue(position) {
  const items = state.queue ? state.queue.items : [];
  for (let next = position + 1; next < items.length; next += 1) {
    if (!items[next].label) { go(`#/review/${next}`); return; }
  }
  toast("No unlabelled item left after this one");
  go("#/review");
}

async function showReview(position) {
  if (position !== undefined && state.queue && state.queue.items[position]) {
    const item = state.queue.items[position];
    await showPair(item.a_id, item.b_id, { item, position, total: state.queue.total });
    return;
  }
  const page = await loadQueue();
  if (position !== undefined && page.items[position]) { showReview(position); return; }
  const labelled = page.labelled;
  const total = page.total;
  const first = page.items.findIndex((item) => !item.label);
  const rows = page.items.map((item, index) => el("tr", { class: "clickable", "data-testid": "review-row",
    onclick: () => go(`#/review/${index}`) },
  el("td", { class: "num" }, index + 1),
  el("td", {}, el("span", { class: "badge" }, item.reason === "single_link_merge" ? "single-link merge" : "near threshold")),
  el("td", { class: "num" }, fixed(item.score, 3)),
  el("td", {}, sideTitle(item, "a")), el("td", {}, sideTitle(item, "b")),
  el("td", {}, item.label ? el("span", { class: `badge ${item.label}` }, item.label.replace("_", " ")) : "")));
  show(
    el("h1", {}, "Review queue"),
    el("div", { class: "card verdict" },
      el("div", { class: "progress", title: "labelled" },
        el("span", { style: `width: ${total ? (100 * labelled) / total : 0}%` })),
      el("span", { "data-testid": "review-progress" }, `${labelled} of ${total} labelled`),
      el("button", { type: "button", class: "primary", disabled: first < 0, "data-testid": "start-review",
        onclick: () => go(`#/review/${first}`) }, first < 0 ? "All labelled" : "Label the next one"),
      el("span", { class: "muted" }, "Keys: ", el("kbd", {}, "D"), " duplicate, ", el("kbd", {}, "N"),
        " not duplicate, ", el("kbd", {}, "S"), " skip")),
    el("p", { class: "muted" }, "Decisions the service was least sure of: scores nearest the threshold, "
      + "and clusters that merged through a single posting."),
    total ? el("table", {}, el("thead", {}, el("tr", {}, el("th", { class: "num" }, "#"), el("th", {}, "Why"),
      el("th", { class: "num" }, "Score"), el("th", {}, "Later posting"), el("th", {}, "Earlier posting"),
      el("th", {}, "Label"))), el("tbody", {}, rows))
      : el("p", { class: "muted" }, "Nothing to review."));
}

function sideTitle(item, side) {
  const summary = item[side] || {};
  return el("div", {}, summary.title || item[`${side}_id`],
    el("div", { class: "muted" }, [summary.company, summary.source].filter(Boolean).join(" · ")));
}

// -------------------------------------------------------------------------------- statistics

const TABLE_ROWS = 20; // groups listed before "show all"
const PALETTE = ["#3a6ea5", "#d1603d", "#2f9e62", "#8a5cb8", "#c79a1e", "#1b9aaa", "#b8437a", "#6b7a8f"];

function lineChart(series, buckets) {
  const width = 900, height = 300, left = 48, right = 12, top = 12, bottom = 40;
  const x = (i) => left + (buckets.length < 2 ? 0 : (i * (width - left - right)) / (buckets.length - 1));
  const y = (v) => top + (1 - v) * (height - top - bottom);
  const parts = [];
  for (const tick of [0, 0.25, 0.5, 0.75, 1]) {
    parts.push(svg("line", { x1: left, x2: width - right, y1: y(tick), y2: y(tick), stroke: "#e3e7ec" }));
    parts.push(svg("text", { x: left - 6, y: y(tick) + 4, "text-anchor": "end", "font-size": 11, fill: "#5b6573" },
      `${tick * 100}%`));
  }
  const every = Math.max(1, Math.ceil(buckets.length / 10));
  buckets.forEach((bucket, i) => {
    if (i % every === 0) {
      parts.push(svg("text", { x: x(i), y: height - bottom + 16, "text-anchor": "middle", "font-size": 11,
        fill: "#5b6573" }, day(bucket)));
    }
  });
  series.forEach((line, index) => {
    const colour = PALETTE[index % PALETTE.length];
    const points = line.values.map((v, i) => (v === null ? null : [x(i), y(v)])).filter(Boolean);
    if (points.length > 1) {
      parts.push(svg("polyline", { points: points.map((p) => p.join(",")).join(" "), fill: "none",
        stroke: colour, "stroke-width": 2 }));
    }
    for (const [px, py] of points) parts.push(svg("circle", { cx: px, cy: py, r: 2.5, fill: colour }));
  });
  parts.push(svg("text", { x: 12, y: height / 2, transform: `rotate(-90 12 ${height / 2})`,
    "text-anchor": "middle", "font-size": 11, fill: "#5b6573" }, "duplicate rate"));
  return el("div", { class: "chart card", "data-testid": "rate-chart" },
    svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img",
      "aria-label": "Duplicate rate per bucket and group" }, parts),
    el("div", { class: "legend" }, series.map((line, index) => el("span", {},
      el("i", { style: `background:${PALETTE[index % PALETTE.length]}` }), line.name))));
}

function overlapTable(overlap) {
  const sources = [...overlap.sources].sort((x, y) => y.clusters - x.clusters)
    .map((s) => s.source).slice(0, 12);
  const counts = new Map();
  let peak = 1;
  for (const pair of overlap.pairs) {
    counts.set(`${pair.a}\u0000${pair.b}`, pair.clusters);
    counts.set(`${pair.b}\u0000${pair.a}`, pair.clusters);
    peak = Math.max(peak, pair.clusters);
  }
  const own = new Map(overlap.sources.map((s) => [s.source, s.clusters]));
  const head = el("tr", {}, el("th", {}, "clusters shared"), sources.map((s) => el("th", { class: "num" }, s)));
  const rows = sources.map((a) => el("tr", {}, el("th", {}, `${a} (${own.get(a)})`), sources.map((b) => {
    if (a === b) return el("td", { class: "cell muted" }, "–");
    const value = counts.get(`${a}\u0000${b}`) || 0;
    const alpha = value ? 0.12 + 0.78 * (value / peak) : 0;
    return el("td", { class: "cell", style: `background: rgba(58,110,165,${alpha.toFixed(2)});`
      + (alpha > 0.55 ? "color:#fff" : ""), title: `${value} clusters hold postings of ${a} and ${b}` }, value);
  })));
  return el("table", { class: "heat card", "data-testid": "overlap" }, el("thead", {}, head), el("tbody", {}, rows));
}

async function showStats(params) {
  const settings = { interval: params.interval || "week", by: params.by ?? "source",
    since: params.since || "", until: params.until || "", all: params.all || "" };
  const select = (name, label, options) => el("label", {}, label, el("select", { name, "data-testid": `stats-${name}` },
    options.map(([value, text]) => el("option", { value, selected: settings[name] === value }, text))));
  const form = el("form", { class: "filters card", onsubmit: (event) => {
    event.preventDefault();
    go(`#/stats${query(Object.fromEntries(new FormData(event.target)))}`);
  } },
  select("interval", "Interval", [["day", "day"], ["week", "week"], ["month", "month"]]),
  select("by", "Per", [["source", "board"], ["company", "company"], ["", "all postings"]]),
  el("label", {}, "Since", el("input", { type: "date", name: "since", value: settings.since })),
  el("label", {}, "Until", el("input", { type: "date", name: "until", value: settings.until })),
  el("button", { type: "submit", class: "primary" }, "Show"));
  show(el("h1", {}, "Duplicate statistics"), form, el("p", { class: "muted" }, "Loading…"));

  const request = { interval: settings.interval, by: settings.by || undefined,
    since: settings.since ? `${settings.since}T00:00:00Z` : undefined,
    until: settings.until ? `${settings.until}T00:00:00Z` : undefined };
  const stats = await api(`/stats${query(request)}`);
  const rows = stats.buckets.map((r) => ({ ...r, bucket: r.start }));
  const bucketNames = [...new Set(rows.map((r) => r.bucket))].sort();
  const totals = new Map();
  for (const row of rows) {
    const name = row.group ?? "all postings";
    const total = totals.get(name) || { postings: 0, distinct: 0, duplicates: 0 };
    total.postings += row.postings; total.distinct += row.distinct; total.duplicates += row.duplicates;
    totals.set(name, total);
  }
  const groups = [...totals.entries()].sort((x, y) => y[1].postings - x[1].postings);
  const shown = groups.slice(0, PALETTE.length).map(([name]) => name);
  const series = shown.map((name) => ({ name, values: bucketNames.map((bucket) => {
    const row = rows.find((r) => r.bucket === bucket && (r.group ?? "all postings") === name);
    return row && row.postings ? row.duplicates / row.postings : null;
  }) }));
  const table = el("table", { "data-testid": "stats-table" }, el("thead", {}, el("tr", {},
    el("th", {}, settings.by ? (settings.by === "source" ? "Board" : "Company") : ""),
    el("th", { class: "num" }, "Postings"), el("th", { class: "num" }, "Distinct vacancies"),
    el("th", { class: "num" }, "Duplicates"), el("th", { class: "num" }, "Duplicate rate"))),
  el("tbody", {}, groups.slice(0, settings.all ? groups.length : TABLE_ROWS).map(([name, t]) => el("tr", {}, el("td", {}, name),
    el("td", { class: "num" }, t.postings), el("td", { class: "num" }, t.distinct),
    el("td", { class: "num" }, t.duplicates), el("td", { class: "num" }, percent(t.postings ? t.duplicates / t.postings : null))))));
  show(el("h1", {}, "Duplicate statistics"), form,
    el("h2", {}, `Duplicate rate per ${settings.interval}`),
    bucketNames.length ? lineChart(series, bucketNames) : el("p", { class: "muted" }, "No postings in this range."),
    groups.length > shown.length ? el("p", { class: "muted" }, `The ${shown.length} largest of ${groups.length} groups are drawn.`) : null,
    table,
    groups.length > TABLE_ROWS && !settings.all
      ? el("p", {}, el("a", { href: `#/stats${query({ ...settings, all: "1" })}`, "data-testid": "all-groups" },
        `Show all ${groups.length} groups`)) : null,
    el("h2", {}, "Which boards carry the same vacancies"),
    el("p", { class: "muted" }, "Clusters holding postings of both boards; beside each board, its own "
      + "clusters. The 12 boards with the most clusters are shown."),
    stats.sources.length > 1 ? overlapTable({ sources: stats.sources, pairs: stats.overlap })
      : el("p", { class: "muted" }, "Fewer than two boards in this range."));
}

// ---------------------------------------------------------------------------------- routing

async function route() {
  state.keyHandler = null;
  const { parts, params } = parseHash();
  for (const link of document.querySelectorAll("[data-nav]")) {
    link.classList.toggle("active", link.dataset.nav === (parts[0] === "cluster" || parts[0] === "pair" ? "clusters" : parts[0]));
  }
  view.setAttribute("aria-busy", "true");
  try {
    if (parts[0] === "cluster" && parts[1]) await showCluster(parts[1]);
    else if (parts[0] === "pair" && parts[1] && parts[2]) await showPair(parts[1], parts[2], null);
    else if (parts[0] === "review") await showReview(parts[1] === undefined ? undefined : Number(parts[1]));
    else if (parts[0] === "stats") await showStats(params);
    else await showClusters(params);
  } catch (error) {
    showError(error);
  } finally {
    view.removeAttribute("aria-busy");
    // A count of finished screens: lets a test (or a script) wait for the next one.
    state.renders = (state.renders || 0) + 1;
    view.dataset.rendered = String(state.renders);
  }
}

document.addEventListener("keydown", (event) => { if (state.keyHandler) state.keyHandler(event); });
window.addEventListener("hashchange", route);
loadModel();
route();
