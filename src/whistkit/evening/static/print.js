// Printing from the browser (A4 or Letter): a card per table with its QR code and link, a
// personal score card per player (a paper backup), the final results with the prizes.
import { api, byId, contractName, contractShort, el, languageMenu, pickLanguage, setLanguage, t, fill, localOnly } from "./ev.js";

const main = document.getElementById("main");
const [, , evening, , kind] = location.pathname.split("/");
let state = null;
let cards = [];

function fmt(x) {
  return Number.isInteger(x) ? String(x) : x.toFixed(1);
}

// the trump cycle, once: "♥ Hearts → ♠ Spades → Grand → ♦ Diamonds → ♣ Clubs → Nóló"
function cycle() {
  return el("p", { class: "cycle" },
    state.cycle.map((c, i) => el("span", {}, i ? "→ " : "", contractName(c))),
    el("span", { class: "sub" }, t("cycle_repeats", { hands: state.hands })));
}

function tableCards() {
  const local = state.tables.length ? localOnly(state.tables[0].url) : null;
  // on screen only: phones in the hall cannot open links to this laptop's own address
  const warning = local ? el("p", { class: "banner noprint", id: "local-links", role: "alert" }, t("local_links", { host: local })) : null;
  // ?table=N: that table's card alone (printed again, or for a table opened late)
  const only = Number(new URLSearchParams(location.search).get("table")) || null;
  const tables = only ? state.tables.filter((tb) => tb.number === only) : state.tables;
  return [warning, ...tables.map((tb) => el("section", { class: "sheet table-card", "data-table": String(tb.number) },
    el("p", { class: "ev-title" }, state.title),
    el("h1", {}, t("table_n", { n: tb.number })),
    cycle(),
    el("img", { class: "qr", src: tb.qr, alt: t("qr_alt", { n: tb.number }) }),
    el("p", { class: "link" }, tb.url),
    el("p", { class: "sub" }, t("card_help"))))];
}

function scoreCards() {
  const lines = new Map(cards.map((c) => [c.player, new Map(c.lines.map((l) => [l.hand, l]))]));
  const cell = (v) => (v === null || v === undefined ? "" : String(v));
  const first = state.hand_states[0];
  const where = new Map();
  if (first) {
    for (const tb of first.tables) for (const [seat, pid] of Object.entries(tb.seats)) where.set(pid, `${t("table_n", { n: tb.table })} · ${t(`seat_${seat}`)}`);
    for (const so of first.sitting_out) where.set(so.player, t(so.reason === "sit_out" ? "sitting_out" : "not_here"));
  }
  return state.players.map((p) => el("section", { class: "score-card", "data-player": String(p.id) },
    el("header", {},
      el("h2", {}, p.name),
      el("span", {}, `${t(`group_${p.group}`)} · ${state.title}`),
      el("span", {}, `${t("hand_n", { n: 1 })}: ${where.get(p.id) || "—"}`)),
    el("table", { class: "grid" },
      el("thead", {}, el("tr", {},
        [t("hand"), t("contract"), t("table"), t("partner"), t("tricks"), t("points"), t("total")].map((h) => el("th", {}, h)))),
      el("tbody", {}, state.contracts.map((c, i) => {
        const l = lines.get(p.id)?.get(i + 1) || {};
        return el("tr", {},
          el("td", {}, String(i + 1)), el("td", {}, contractShort(c)),
          el("td", {}, l.absent ? t("not_here") : l.sat_out ? t("sitting_out") : cell(l.table)),
          el("td", { class: "wide" }, cell(l.partner)),
          el("td", {}, cell(l.tricks)), el("td", {}, cell(l.points)), el("td", {}, cell(l.total)));
      })))));
}

function results() {
  const names = byId(state.players);
  const groups = {};
  for (const r of state.standings) (groups[r.group] ||= []).push(r);
  return el("section", { class: "results" },
    el("h1", {}, state.title, " · ", t(state.status === "finished" ? "final_results" : "standings")),
    state.prizes.length
      ? el("div", { id: "prizes" }, el("h2", {}, t("prizes")),
          el("table", { class: "grid" }, el("tbody", {}, state.prizes.map((p) => el("tr", {},
            el("td", {}, t(`prize_${p.category}`)), el("td", {}, String(p.place)),
            el("td", {}, p.players.map((id) => names.get(id)?.name ?? `#${id}`).join(", ")),
            el("td", { class: "num" }, p.value !== undefined && p.value !== null ? fmt(p.value) : ""))))))
      : null,
    Object.keys(groups).sort().map((g) => el("div", { class: "group" },
      el("h2", {}, t(`group_${g}`)),
      el("table", { class: "grid" }, el("tbody", {}, groups[g].map((r) => el("tr", {},
        el("td", {}, String(r.rank)), el("td", {}, r.name), el("td", { class: "num" }, fmt(r.total)))))))));
}

async function start() {
  await setLanguage(pickLanguage());
  languageMenu(document.getElementById("lang"), render);
  const paper = document.getElementById("paper");
  paper.addEventListener("change", () => {
    // a stylesheet file per paper size: the page's CSP allows no inline style
    document.getElementById("page-size").href = `/static/page-${paper.value === "letter" ? "letter" : "A4"}.css`;
  });
  document.getElementById("btn-print").addEventListener("click", () => {
    if (document.getElementById("local-links") && !confirm(document.getElementById("local-links").textContent)) return;
    window.print();
  });
  try {
    state = await api("GET", `/api/e/${evening}`);
    if (kind === "scorecards") cards = (await api("GET", `/api/e/${evening}/cards`)).cards;
  } catch (e) {
    const box = document.getElementById("error");
    box.textContent = e.message;
    box.hidden = false;
    return;
  }
  await render();
  document.body.dataset.ready = "1";
}

async function render() {
  if (!state) return;
  document.title = `${state.title} · ${t(`print_${kind}`)}`;
  const made = kind === "tables" ? tableCards() : kind === "scorecards" ? scoreCards() : results();
  fill(main, made);
  // printing waits for the QR codes
  await Promise.all([...main.querySelectorAll("img")].map((img) => img.decode().catch(() => null)));
}

start();
