// A table's page on a phone (from the QR code on the table card, no login): who sits where,
// the contract; one player enters their partnership's tricks, an opponent confirms; then
// who moves where.
import { api, contractName, el, languageMenu, pickLanguage, setLanguage, t, watch, fill } from "./ev.js";

const main = document.getElementById("main");
const errorBox = document.getElementById("error");
const [, , evening, token] = location.pathname.split("/");
const base = `/api/t/${evening}/${token}`;
let state = null;
// this page's choices for the hand on screen: who enters, their tricks
let choice = { hand: null, by: null, tricks: null };

function showError(message) {
  errorBox.textContent = message || "";
  errorBox.hidden = !message;
}

async function act(fn) {
  try {
    showError(null);
    await fn();
  } catch (e) {
    showError(e.message);
  }
}

const SEATS = ["N", "E", "S", "W"];
const SIDE = { N: "NS", S: "NS", E: "EW", W: "EW" };

function seatOf(hand, pid) {
  return SEATS.find((s) => hand.seats[s].id === pid);
}

function render() {
  const s = state;
  document.getElementById("head").textContent = s
    ? `${t("table_n", { n: s.table })}${s.hand ? ` · ${t("hand_of", { n: s.hand.number, total: s.hands })}` : ""}`
    : "…";
  if (!s) return;
  document.title = `${t("table_n", { n: s.table })} · ${s.title}`;
  document.body.dataset.table = String(s.table);
  const hand = s.hand;
  if (!hand || hand.number !== choice.hand) choice = { hand: hand ? hand.number : null, by: null, tricks: null };
  fill(main,
    s.status === "paused" ? el("p", { class: "banner", id: "paused" }, t("paused_banner")) : null,
    s.status === "setup" ? el("p", { class: "banner" }, t("not_started")) : null,
    s.status === "finished" ? el("p", { class: "banner", id: "finished" }, t("evening_over")) : null,
    s.arrived && s.arrived.length && hand && !hand.result ? arrivals(s.arrived) : null,
    hand ? el("p", { class: "contract", id: "contract" }, contractName(hand.contract)) : null,
    hand ? compass(hand) : s.sitting_out ? null : el("p", { class: "big" }, t("no_hand_here")),
    hand ? stage(hand) : null,
  );
  document.body.dataset.hand = hand ? String(hand.number) : "";
  document.body.dataset.contract = hand ? hand.contract : "";
  document.body.dataset.stage = hand ? (hand.result ? "done" : hand.pending ? "pending" : "enter") : "none";
}

function arrivals(moves) {
  return el("div", { class: "moves small-moves", id: "arrived" },
    el("b", {}, t("moves_after", { n: moves[0].after })),
    moves.map((m) => el("div", {},
      m.stay ? t("stays", { name: m.name })
        : m.from === null ? t("comes_in", { name: m.name }) : t("arrives", { name: m.name, from: m.from }))));
}

function compass(hand) {
  const cell = (seat) => {
    const p = hand.seats[seat];
    return el("div", { class: `seat seat-${seat}`, "data-seat": seat },
      el("span", { class: "where" }, t(`seat_${seat}`), hand.dealer === seat ? ` · ${t("deals")}` : ""),
      el("span", { class: "who" }, p.name),
      el("span", { class: "grp" }, t(`group_${p.group}`)));
  };
  return el("div", { class: "compass" }, SEATS.map(cell), el("div", { class: "middle" }, t("table_n", { n: state.table })));
}

function stage(hand) {
  if (hand.result) return resultView(hand);
  if (state.status !== "running") return null;
  if (hand.pending) return confirmView(hand);
  return entryView(hand);
}

function entryView(hand) {
  const who = el("div", { class: "choose" },
    el("p", {}, t("who_enters")),
    el("div", { class: "names" }, SEATS.map((seat) => {
      const p = hand.seats[seat];
      return el("button", {
        class: choice.by === p.id ? "on" : "",
        "data-by": String(p.id),
        onclick: () => { choice.by = p.id; render(); },
      }, p.name);
    })));
  if (choice.by === null) return who;
  const side = SIDE[seatOf(hand, choice.by)];
  const [a, b] = side === "NS" ? ["N", "S"] : ["E", "W"];
  const pair = `${hand.seats[a].name} & ${hand.seats[b].name}`;
  const grid = el("div", { class: "tricks-grid" }, Array.from({ length: 14 }, (_, n) =>
    el("button", {
      class: choice.tricks === n ? "on" : "",
      "data-tricks": String(n),
      onclick: () => { choice.tricks = n; render(); },
    }, String(n))));
  const other = side === "NS" ? "EW" : "NS";
  return el("div", {},
    who,
    el("p", {}, t("tricks_of", { pair })),
    grid,
    choice.tricks !== null
      ? el("p", { class: "big", id: "entry-sum" },
          `${t(`side_${side}`)} ${choice.tricks} · ${t(`side_${other}`)} ${13 - choice.tricks}`)
      : null,
    el("button", {
      class: "primary wide", id: "btn-send", disabled: choice.tricks === null,
      onclick: () => act(() => api("POST", `${base}/enter`, {
        hand: hand.number, side, tricks: choice.tricks, by: choice.by,
      })),
    }, t("send")));
}

function confirmView(hand) {
  const p = hand.pending;
  const enterer = seatOf(hand, p.by);
  const opponents = SEATS.filter((s) => SIDE[s] !== SIDE[enterer]);
  return el("div", { class: "confirm" },
    el("p", {}, t("entered_by", { name: hand.seats[enterer].name })),
    el("p", { class: "big", id: "pending-sum" }, `${t("side_NS")} ${p.ns} · ${t("side_EW")} ${13 - p.ns}`),
    el("p", {}, t("opponent_confirms")),
    el("div", { class: "names" }, opponents.map((s) => el("button", {
      class: "primary", "data-confirm": String(hand.seats[s].id),
      onclick: () => act(() => api("POST", `${base}/confirm`, { hand: hand.number, by: hand.seats[s].id, ns: p.ns })),
    }, t("confirm_as", { name: hand.seats[s].name })))),
    el("button", {
      id: "btn-reject",
      onclick: () => act(() => api("POST", `${base}/reject`, { hand: hand.number, by: p.by })),
    }, t("not_right")));
}

function moveText(m) {
  if (m.to === null) return t("goes_out", { name: m.name });
  const seat = m.seat ? ` (${t(`seat_${m.seat}`)})` : "";
  return (m.stay ? t("stays", { name: m.name }) : t("moves_to", { name: m.name, n: m.to })) + seat;
}

function resultView(hand) {
  const r = hand.result;
  return el("div", { class: "done" },
    el("p", { class: "big", id: "result" }, "✓ ", `${t("side_NS")} ${r.ns} · ${t("side_EW")} ${13 - r.ns}`),
    state.moves && state.moves.length
      ? el("div", { class: "moves", id: "moves" }, el("b", {}, t("moves_after", { n: hand.number })),
          state.moves.map((m) => el("div", { "data-player": String(m.player) }, moveText(m))))
      : null,
    state.waiting && state.waiting.length
      ? el("p", { class: "sub" }, t("waiting_for", { tables: state.waiting.join(", ") }))
      : null);
}

async function start() {
  await setLanguage(pickLanguage());
  languageMenu(document.getElementById("lang"), render);
  watch(base, (data) => {
    state = data;
    render();
  }, (trouble) => showError(trouble), "etag");
  document.body.dataset.ready = "1";
}

start();
