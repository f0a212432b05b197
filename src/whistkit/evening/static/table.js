// A table's page on a phone (from the QR code on the table card, no login): who sits where,
// the contract; one player enters their partnership's tricks, an opponent confirms; then
// who moves where.
import { api, contractName, el, explain, languageMenu, pickLanguage, setLanguage, t, watch, fill } from "./ev.js";

const main = document.getElementById("main");
const errorBox = document.getElementById("error");
const [, , evening, token] = location.pathname.split("/");
const base = `/api/t/${evening}/${token}`;
let state = null;
// this page's choices for the hand on screen: who enters, their tricks
let choice = { hand: null, by: null, tricks: null };
// what went wrong with this page's last action, shown next to the action: { text, hand }
let trouble = null;
// an action the server did not receive (it was down): sent again when it is back
let unsent = null;
const RESEND_SECONDS = 4;
let sending = false; // an action is on its way

function showError(message) {
  errorBox.textContent = message || "";
  errorBox.hidden = !message;
}

// An entry, confirmation or rejection sent to the server. If the server cannot be reached
// the action is kept and sent again when the server answers (watch's next answer); any
// refusal is shown in the page's language next to the buttons.
async function act(fn) {
  const hand = state && state.hand ? state.hand.number : null;
  sending = true;
  try {
    await fn();
    trouble = null;
    unsent = null;
  } catch (e) {
    if (e.offline) {
      unsent = { fn, hand };
      trouble = { text: t("not_sent_offline"), hand, retry: true };
      // tried again by itself: when the page's next update comes, or in a few seconds
      setTimeout(resend, RESEND_SECONDS * 1000);
    } else {
      unsent = null;
      trouble = { text: explain(e), hand, retry: false };
    }
  } finally {
    sending = false;
  }
  render();
  const box = document.getElementById("act-error");
  if (box) box.scrollIntoView({ block: "nearest" });
}

// the server answers again: send what it missed (once; a new failure keeps it again)
function resend() {
  if (!unsent || sending) return;
  const { fn, hand } = unsent;
  unsent = null;
  if (!state || !state.hand || state.hand.number !== hand) {
    trouble = null;
    render();
    return;
  }
  act(fn);
}

function troubleBox(hand) {
  if (!trouble || trouble.hand !== hand.number) return null;
  return el("div", { class: "act-error", id: "act-error", role: "alert" },
    el("p", {}, trouble.text),
    trouble.retry ? el("button", { id: "btn-retry", onclick: () => resend() }, t("send_again")) : null);
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
    hand && !hand.result && ((s.arrived && s.arrived.length) || (s.left && s.left.length))
      ? arrivals(s.arrived || [], s.left || []) : null,
    hand ? el("p", { class: "contract", id: "contract" }, contractName(hand.contract)) : null,
    hand ? compass(hand) : s.sitting_out ? null : el("p", { class: "big" }, t("no_hand_here")),
    hand ? stage(hand) : null,
  );
  // a long word that does not fit even smaller: the seats and names one a row
  main.classList.remove("narrow");
  if (!fitWords(main.querySelectorAll(".compass .who, .names button"))) {
    main.classList.add("narrow");
    fitWords(main.querySelectorAll(".compass .who, .names button"));
  }
  document.body.dataset.hand = hand ? String(hand.number) : "";
  document.body.dataset.contract = hand ? hand.contract : "";
  document.body.dataset.stage = hand ? (hand.result ? "done" : hand.pending ? "pending" : "enter") : "none";
}

// A name breaks only between words: where one word is wider than its box, the text is
// made smaller (down to 60 %) until it fits. False if one does not fit even so.
function fitWords(elements) {
  let fits = true;
  for (const e of elements) {
    e.style.fontSize = "";
    const size = parseFloat(getComputedStyle(e).fontSize);
    for (let k = 0.95; e.scrollWidth > e.clientWidth + 1 && k >= 0.6; k -= 0.05) {
      e.style.fontSize = `${size * k}px`;
    }
    if (e.scrollWidth > e.clientWidth + 1) fits = false;
  }
  return fits;
}

// The moves into this hand at this table: who left it and where to (the table that
// reported last never saw them on its result), then who sits here now.
function arrivals(arrived, left) {
  return el("div", { class: "moves small-moves", id: "arrived" },
    el("b", {}, t("moves_after", { n: (arrived[0] || left[0]).after })),
    left.map((m) => el("div", { class: "left", "data-left": String(m.player) }, moveText(m))),
    arrived.map((m) => el("div", { "data-arrived": String(m.player) },
      m.stay ? t("stays", { name: m.name })
        : m.from === null ? t(m.new ? "arrives_new" : "comes_in", { name: m.name })
          : t("arrives", { name: m.name, from: m.from }))));
}

function compass(hand) {
  const cell = (seat) => {
    const p = hand.seats[seat];
    return el("div", { class: `seat seat-${seat}`, "data-seat": seat },
      el("span", { class: "where" }, t(`seat_${seat}`), hand.dealer === seat ? ` · ${t("deals")}` : ""),
      el("span", { class: "who" }, p.name),
      el("span", { class: "grp" }, t(`group_${p.group}`),
        p.total !== null && p.total !== undefined ? el("span", { class: "total", "data-total": String(p.total) }, ` · ${t("total_so_far", { total: p.total })}`) : null));
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
        onclick: () => { choice.by = p.id; render(); reveal("btn-send", "end"); },
      }, p.name);
    })));
  if (choice.by === null) return who;
  const side = SIDE[seatOf(hand, choice.by)];
  const [a, b] = side === "NS" ? ["N", "S"] : ["E", "W"];
  const pair = t("pair_and", { a: hand.seats[a].name, b: hand.seats[b].name });
  const grid = el("div", { class: "tricks-grid" }, Array.from({ length: 14 }, (_, n) =>
    el("button", {
      class: choice.tricks === n ? "on" : "",
      "data-tricks": String(n),
      onclick: () => { choice.tricks = n; render(); reveal("btn-send", "nearest"); },
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
    }, t("send")),
    troubleBox(hand));
}

// after a tap, the next thing to tap is in view (the tricks and Send below the names)
function reveal(id, block) {
  const e = document.getElementById(id);
  if (e) e.scrollIntoView({ block });
}

function confirmView(hand) {
  const p = hand.pending;
  const enterer = seatOf(hand, p.by);
  const opponents = SEATS.filter((s) => SIDE[s] !== SIDE[enterer]);
  return el("div", { class: "confirm" },
    el("p", {}, t("entered_by", { name: hand.seats[enterer].name })),
    el("p", { class: "big", id: "pending-sum" }, `${t("side_NS")} ${p.ns} · ${t("side_EW")} ${13 - p.ns}`),
    // the phone that entered it does not confirm it: another phone (or the host) does
    p.mine
      ? el("p", { id: "other-phone" }, t("confirm_other_phone"))
      : [el("p", {}, t("opponent_confirms")),
        el("div", { class: "names" }, opponents.map((s) => el("button", {
          class: "primary", "data-confirm": String(hand.seats[s].id),
          onclick: () => act(() => api("POST", `${base}/confirm`, { hand: hand.number, by: hand.seats[s].id, ns: p.ns })),
        }, t("confirm_as", { name: hand.seats[s].name }))))],
    el("button", {
      id: "btn-reject",
      onclick: () => act(() => api("POST", `${base}/reject`, { hand: hand.number, by: p.by })),
    }, t("not_right")),
    troubleBox(hand));
}

function moveText(m) {
  if (m.to === null) return t(m.leaves ? "goes_home" : "goes_out", { name: m.name });
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
  addEventListener("resize", () => render()); // the names are fitted to the width
  watch(base, (data) => {
    state = data;
    render();
    resend();
  }, (problem) => {
    showError(problem);
    if (!problem) resend();
  }, "etag");
  document.body.dataset.ready = "1";
}

start();
