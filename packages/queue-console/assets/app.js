// The dashboard's page: reads the JSON API every few seconds and draws it. Every value from the
// server is put in the page as text (textContent), never as HTML, so a stored error message cannot
// become markup or script. The token lives in sessionStorage, is sent as a bearer header, and is
// taken out of the address bar (#token=...) as soon as the page has read it.
const REFRESH_MS = 3000;
const $ = (selector) => document.querySelector(selector);
let token = sessionStorage.getItem("tempest-queue-token") ?? "";
let writable = false;
let timer;

/** Takes a token given in the address's fragment (#token=...), then removes it from the address. */
function tokenFromFragment() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (!fragment.has("token")) return false;
  token = fragment.get("token") ?? "";
  sessionStorage.setItem("tempest-queue-token", token);
  history.replaceState(null, "", location.pathname + location.search);
  return true;
}
tokenFromFragment();
window.addEventListener("hashchange", () => {
  if (tokenFromFragment()) {
    $("#login").hidden = true;
    refresh();
  }
});

async function api(path, init = {}) {
  const response = await fetch(path, { ...init, headers: { ...(init.headers ?? {}), authorization: `Bearer ${token}` } });
  if (response.status === 401) {
    showLogin("The token was refused.");
    throw new Error("unauthorized");
  }
  const body = await response.json();
  if (!response.ok) throw new Error(body.error ?? `HTTP ${response.status}`);
  return body;
}

function showLogin(message) {
  clearTimeout(timer);
  $("#main").hidden = true;
  $("#login").hidden = false;
  $("#login-error").textContent = message ?? "";
}

$("#login").addEventListener("submit", (event) => {
  event.preventDefault();
  token = $("#token").value;
  sessionStorage.setItem("tempest-queue-token", token);
  $("#login").hidden = true;
  refresh();
});

function cell(row, value, className) {
  const td = document.createElement("td");
  td.textContent = value === null || value === undefined ? "–" : String(value);
  if (className) td.className = className;
  row.append(td);
  return td;
}

function fillTable(selector, rows, columns) {
  const body = $(`${selector} tbody`);
  body.replaceChildren();
  if (rows.length === 0) {
    const tr = document.createElement("tr");
    const td = cell(tr, "none");
    td.colSpan = $(`${selector} thead tr`).children.length;
    body.append(tr);
    return;
  }
  for (const row of rows) {
    const tr = document.createElement("tr");
    for (const [value, className] of columns(row)) cell(tr, value, className);
    body.append(tr);
  }
}

const time = (iso) => (iso ? new Date(iso).toLocaleTimeString() : "–");
/** An age in seconds (measured by the database's clock, not this browser's) as "42s", "7m", "3h". */
function age(seconds) {
  if (seconds === null) return "nothing due";
  const s = Math.round(seconds);
  return s < 60 ? `${s}s` : s < 3600 ? `${Math.floor(s / 60)}m` : `${Math.floor(s / 3600)}h`;
}

const SVG = "http://www.w3.org/2000/svg";
function svgEl(name, attributes) {
  const el = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) el.setAttribute(key, String(value));
  return el;
}

function drawDepth(history) {
  const svg = $("#chart");
  svg.replaceChildren();
  const width = 800,
    height = 200,
    pad = 28;
  const series = [
    ["queued", "var(--queued)"],
    ["failed", "var(--failed)"],
    ["sending", "var(--sending)"],
  ];
  const max = Math.max(1, ...history.flatMap((s) => series.map(([key]) => s[key])));
  svg.append(svgEl("line", { x1: pad, y1: height - pad, x2: width, y2: height - pad, stroke: "var(--line)" }));
  const label = svgEl("text", { x: 2, y: 14, fill: "var(--muted)", "font-size": 11 });
  label.textContent = String(max);
  svg.append(label);
  if (history.length === 0) return;
  const x = (i) => pad + (history.length === 1 ? 0 : (i / (history.length - 1)) * (width - pad - 4));
  const y = (v) => height - pad - (v / max) * (height - 2 * pad);
  for (const [key, color] of series) {
    const points = history.map((s, i) => `${x(i).toFixed(1)},${y(s[key]).toFixed(1)}`).join(" ");
    svg.append(svgEl("polyline", { points, fill: "none", stroke: color, "stroke-width": 2, "data-series": key }));
  }
}

function drawThroughput(buckets) {
  const svg = $("#throughput");
  svg.replaceChildren();
  const width = 800,
    height = 120,
    pad = 18;
  const ordered = [...buckets].reverse(); // oldest on the left
  const max = Math.max(1, ...ordered.map((b) => b.sent + b.failed));
  const w = (width - pad) / Math.max(1, ordered.length);
  ordered.forEach((b, i) => {
    const hSent = (b.sent / max) * (height - pad),
      hFailed = (b.failed / max) * (height - pad);
    svg.append(svgEl("rect", { x: pad + i * w + 1, y: height - pad - hSent, width: w - 2, height: hSent, fill: "var(--sent)" }));
    svg.append(
      svgEl("rect", { x: pad + i * w + 1, y: height - pad - hSent - hFailed, width: w - 2, height: hFailed, fill: "var(--failed)" }),
    );
    const tip = svgEl("title", {});
    tip.textContent = `${b.minutesAgo} min ago: ${b.sent} sent, ${b.failed} failed`;
    svg.lastChild.append(tip);
  });
}

async function act(action, id) {
  try {
    const result = await api(`api/${action}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ids: [id] }),
    });
    $("#action-result").textContent =
      `${action === "retry" ? "Retried" : "Cancelled"} ${result.count} message${result.count === 1 ? "" : "s"}.`;
  } catch (error) {
    $("#action-result").textContent = `${action} failed: ${error.message}`;
  }
  refresh();
}

async function loadMessages() {
  const status = $("#list-status").value;
  const { messages } = await api(`api/messages?status=${encodeURIComponent(status)}`);
  const body = $("#messages tbody");
  body.replaceChildren();
  for (const m of messages) {
    const tr = document.createElement("tr");
    tr.dataset.id = String(m.id);
    cell(tr, m.id);
    cell(tr, m.consumer);
    cell(tr, m.attempts);
    cell(tr, time(m.updatedAt));
    cell(tr, m.lastError ?? "", "error-text");
    const actions = cell(tr, "");
    const verb = status === "failed" ? "retry" : status === "queued" ? "cancel" : undefined;
    if (writable && verb) {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = verb === "retry" ? "Retry" : "Cancel";
      button.dataset.action = verb;
      button.addEventListener("click", () => act(verb, m.id));
      actions.append(button);
    }
    body.append(tr);
  }
  if (messages.length === 0) fillTable("#messages", [], () => []);
}

async function refresh() {
  clearTimeout(timer);
  if (!token) return showLogin();
  try {
    const s = await api("api/snapshot");
    writable = s.writable;
    $("#main").hidden = false;
    $("#table").textContent = s.table;
    for (const key of ["queued", "due", "sending", "failed"]) $(`[data-metric="${key}"]`).textContent = String(s.depth[key]);
    $('[data-metric="oldestDue"]').textContent = age(s.oldestDue.ageSeconds);
    drawDepth(s.history);
    drawThroughput(s.throughput);
    fillTable("#consumers", s.consumers, (c) => [[c.consumer], [c.queued], [c.sending], [c.failed], [time(c.nextAttemptAt)]]);
    fillTable("#failing", s.failing, (f) => [[f.consumer], [f.failed], [time(f.lastFailedAt)], [f.lastError, "error-text"]]);
    await loadMessages();
    $("#status").textContent =
      `updated ${new Date().toLocaleTimeString()}${writable ? "" : " · read-only"}${s.historyError ? ` · sampling failed: ${s.historyError}` : ""}`;
    document.body.dataset.loaded = "true";
  } catch (error) {
    if (error.message === "unauthorized") return;
    $("#status").textContent = `error: ${error.message}`;
  }
  timer = setTimeout(refresh, REFRESH_MS);
}

$("#list-status").addEventListener("change", () => loadMessages());
refresh();
