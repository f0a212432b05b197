// The table: seats, public facts, the trick, the status line and the result.

import { cardLabel, t } from "./i18n.js";
import { renderActions } from "./actions.js";
import { send } from "./connection.js";
import { hintText, renderHand } from "./hand.js";
import { renderLast, renderSheet } from "./sheet.js";
import { $, app, badge, CARD_BESIDE, cardFace, contractText, formatValue, isCard, isSeatCards, partnerOf, posOf, PUBLIC_HIDDEN, publicKey, publicName, seatName, SEATS, sideOf, trickWonText } from "./state.js";

export function render() {
  const v = app.view;
  if (!v) return;
  if (app.hint && (app.hint.v !== app.version || v.to_play !== app.seat)) app.hint = null;
  const table = $("#table");
  table.dataset.turn = v.to_play || "";
  table.dataset.myTurn = String(v.to_play === app.seat);
  table.dataset.phase = v.phase;
  table.dataset.version = String(app.version);

  // above the table: "3/12 · Grand"
  const info = $("#hand-info");
  info.dataset.hand = String(v.hand_number);
  info.dataset.contract = v.contract ? v.contract.code : "";
  const num = v.hands_total ? t("hand_total", { n: v.hand_number, total: Math.max(v.hands_total, v.hand_number) }) : t("hand_open", { n: v.hand_number });
  info.textContent = `${num} · ${contractText(v.contract)}`;
  if (v.contract && v.contract.declarer) info.textContent += ` · ${t("declarer", { seat: seatName(v.contract.declarer) })}`;

  const mySide = sideOf(app.seat);
  $("[data-score-ns]").textContent = String(v.score.NS);
  $("[data-score-ew]").textContent = String(v.score.EW);
  const [weEl, theyEl] = document.querySelectorAll(".scores .score > span");
  weEl.textContent = mySide === "NS" ? `${t("we")} (${t("side_ns")})` : `${t("they")} (${t("side_ns")})`;
  theyEl.textContent = mySide === "EW" ? `${t("we")} (${t("side_ew")})` : `${t("they")} (${t("side_ew")})`;

  // while bidding (Swedish bottom cards) the first leader is not known yet
  const roles = [t("dealt_by", { seat: seatName(v.dealer) })];
  if (v.phase !== "bid") roles.push(t("leader_is", { seat: seatName(v.first_leader) }));
  $("#roles").textContent = roles.join(" · ");

  renderSeats(v);
  renderPublicInfo(v);
  renderTrick(v);
  renderHand(v);
  renderActions(v);
  renderStatus(v);
  renderResult(v);
  if ($("#dlg-sheet").open) renderSheet();
  if ($("#dlg-last").open) renderLast();
}

export function renderSeats(v) {
  for (const seat of SEATS) {
    const pos = posOf(seat);
    const el = pos === "bottom" ? $("#me") : document.querySelector(`.seat[data-pos="${pos}"]`);
    el.replaceChildren();
    el.dataset.seat = seat;
    el.classList.toggle("to-play", v.to_play === seat);
    const name = document.createElement("div");
    name.className = "name";
    const role = seat === app.seat ? "" : seat === partnerOf(app.seat) ? ` (${t("partner")})` : "";
    name.textContent = seatName(seat) + role;
    el.append(name);
    const badges = document.createElement("div");
    badges.className = "badges";
    if (seat === v.dealer) badges.append(badge(t("dealer"), "dealer"));
    if (seat === v.leader && v.phase === "play") badges.append(badge(t("leads"), "leader")); // leads this trick
    if (badges.childElementCount) el.append(badges);
    if (pos !== "bottom") {
      const count = document.createElement("div");
      count.className = "count";
      count.textContent = t("cards_left", { n: v.hand_sizes[seat] });
      el.append(count);
    }
    // public cards beside their owner: revealed bottom cards, exposed cards, the
    // turned-up trump beside the dealer, your own bottom card beside you
    for (const [rawKey, value] of Object.entries(v.public || {})) {
      const key = publicKey(rawKey);
      let codes = [];
      if (isSeatCards(value) && value[seat]) codes = [].concat(value[seat]);
      else if (isCard(value) && CARD_BESIDE[key] === "dealer" && seat === v.dealer) codes = [value];
      else if (isCard(value) && CARD_BESIDE[key] === "me" && seat === app.seat && !shownBeside(v, seat, value)) codes = [value];
      if (codes.length) {
        const box = document.createElement("div");
        box.className = "public";
        box.dataset.public = key;
        const label = document.createElement("span");
        label.className = "label";
        label.textContent = publicName(key);
        const cards = document.createElement("div");
        cards.className = "cards";
        for (const code of codes) cards.append(publicCard(code));
        box.append(label, cards);
        el.append(box);
      }
    }
  }
}

// is ``code`` already drawn beside ``seat`` by a map of seats to cards (a revealed card)?
export function shownBeside(v, seat, code) {
  return Object.values(v.public || {}).some((x) => isSeatCards(x) && [].concat(x[seat] || []).includes(code));
}

// a public card; an exposed card that we may call is a button that calls it
export function publicCard(code) {
  const call = (app.view.irregular || []).find((a) => a.type === "action" && a.action.kind === "Call" && a.action.card === code);
  const face = cardFace(code);
  if (!call) return face;
  const b = document.createElement("button");
  b.type = "button";
  b.className = "call";
  b.dataset.call = code;
  b.setAttribute("aria-label", t("action_Call", { card: cardLabel(code) }));
  b.append(face);
  b.addEventListener("click", () => send({ type: "action", action: call.action }));
  return b;
}

// public facts that belong to no seat (games won, the rubber, ...), as one line of text
export function renderPublicInfo(v) {
  const parts = [];
  for (const [rawKey, value] of Object.entries(v.public || {})) {
    const key = publicKey(rawKey);
    if (PUBLIC_HIDDEN.has(key) || isSeatCards(value) || (isCard(value) && CARD_BESIDE[key])) continue;
    if (value === true) { parts.push(publicName(key)); continue; }
    let text = formatValue(value);
    const lead = key === "must_lead" && typeof value === "string" && /^([NESW]) (\w+)$/.exec(value);
    if (lead) {
      const suit = "SHDC"[["spades", "hearts", "diamonds", "clubs"].indexOf(lead[2])];
      text = `${seatName(lead[1])}: ${suit ? t(`suit_${suit}`) : lead[2]}`;
    }
    parts.push(`${publicName(key)}: ${text}`);
  }
  const match = v.match || {};
  if (Array.isArray(match.games) && match.games.length) {
    // each game as its winner and the winner's score first: "E–W 6–1 (2)"
    const games = match.games.map((g) => {
      const score = g.score ? (g.winner === "EW" ? `${g.score.EW}–${g.score.NS}` : `${g.score.NS}–${g.score.EW}`) : "";
      return `${formatValue(g.winner)} ${score}${g.value ? ` (${g.value})` : ""}`;
    });
    parts.push(`${t("public_games")}: ${games.join(", ")}`);
  }
  if (match.rubber && match.rubber.winner) {
    parts.push(t("rubber_won", { side: formatValue(match.rubber.winner), net: match.rubber.net }));
  }
  const el = $("#public-info");
  el.textContent = parts.join(" · ");
  el.hidden = parts.length === 0;
}

export function renderTrick(v) {
  let cards = v.trick;
  let done = null;
  if (cards.length === 0 && app.doneTrick) {
    done = app.doneTrick;
    cards = done.cards;
  }
  const area = document.querySelector("[data-trick]");
  area.setAttribute("aria-label", t("trick_area"));
  area.classList.toggle("done", Boolean(done));
  for (const slot of area.querySelectorAll(".slot")) slot.replaceChildren();
  for (const { seat, card } of cards) {
    const face = cardFace(card);
    face.dataset.seat = seat;
    if (done && done.winner === seat) face.classList.add("winner");
    area.querySelector(`[data-slot="${posOf(seat)}"]`).append(face);
  }
}

export function renderStatus(v) {
  let text;
  if (app.message) text = app.message;
  else if (v.winner) text = t("result_title");
  else if (app.picking) text = t(`prompt_${app.picking}`);
  else if (v.to_play === app.seat) {
    const special = v.legal.some((a) => a.type === "action");
    text = v.phase === "bid" ? t("prompt_bid") : special && !v.legal.some((a) => a.type === "play") ? t("prompt_action") : t("your_turn");
  } else if (v.to_play) text = t("turn_of", { seat: seatName(v.to_play) });
  else text = t("waiting");
  if (!app.message && v.trick.length === 0 && app.doneTrick && app.doneTrick.winner) {
    text = `${trickWonText(app.doneTrick.winner)} · ${text}`;
  }
  if (!app.message && app.handNote && v.played_count === 0) text = `${app.handNote} · ${text}`;
  if (!app.message && app.hint && !v.winner) text = hintText(app.hint.action);
  $("#status").textContent = text;
}

export function showMessage(text) {
  app.message = text;
  $("#status").textContent = text;
  clearTimeout(showMessage.timer);
  showMessage.timer = setTimeout(() => { app.message = null; if (app.view) renderStatus(app.view); }, 4000);
}

export function renderResult(v) {
  const dlg = $("#dlg-result");
  const banner = $("#result-banner");
  if (!v.winner) {
    banner.removeAttribute("data-result");
    banner.hidden = true;
    if (dlg.open) dlg.close();
    return;
  }
  const mine = sideOf(app.seat);
  const text = v.winner === "draw" ? t("result_draw") : v.winner === mine ? t("result_win") : t("result_loss");
  let score = t("final_score", { ns: `${t("side_ns")} ${v.score.NS}`, ew: `${v.score.EW} ${t("side_ew")}` });
  // a rubber is won by games, not by the last game's score: say so
  const rubber = v.match && v.match.rubber;
  if (rubber && rubber.winner) score = `${t("rubber_won", { side: formatValue(rubber.winner), net: rubber.net })} · ${score}`;
  $("#result-text").textContent = text;
  $("#result-score").textContent = score;
  banner.dataset.result = v.winner;
  banner.hidden = false;
  $("#banner-text").textContent = `${text} ${score}`;
  // shown once per game; the banner attribute stays for as long as the game is over
  if (app.resultShown !== app.game && !document.querySelector("dialog[open]")) {
    app.resultShown = app.game;
    dlg.showModal();
  }
}
